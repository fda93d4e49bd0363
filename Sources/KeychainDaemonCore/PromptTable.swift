// SPDX-License-Identifier: MIT
//
// Pending prompts, each owned by the connection that made it and dropped when that connection
// leaves the bus. The one part of the daemon that is an actor: a prompt is made, started,
// finished or dismissed by different calls, and those steps must not interleave.

import KeychainDBus
import KeychainPrompt
import KeychainStore
import SecretServiceProtocol

/// What a prompt does when it runs.
package enum PromptAction: Sendable {
  /// Unlock these collections; on success the result is `objects` (the paths as given). With
  /// `forApp`, the dialog names the (Flatpak) application that asks. With `access`, the items
  /// its application may not read yet are then asked about (`access-control = protect`).
  case unlock(
    collections: [String], objects: [ObjectPath], forApp: String? = nil,
    access: AccessAsk? = nil)
  /// Create a collection with this label and alias; the result is its path.
  case createCollection(label: String, alias: String)
  /// Change the password of a collection (gnome-keyring's ChangeWithPrompt); the result is
  /// its path.
  case changePassword(collection: String)
  /// Ask whether a change to the keyrings may be made (`access-control = protect`): a call
  /// that has no prompt of its own waits for the answer (not dismissed: allowed).
  case confirm(ChangeQuestion)
  /// Delete a collection once the user allows it (Collection.Delete in `protect`, when other
  /// programs' items are in it: `deletion` says which, and who asks).
  case deleteCollection(String, ChangeQuestion, deletion: Deletion)

  /// The items of other programs a deletion would take, and the caller that asks.
  package struct Deletion: Sendable {
    let caller: CallerApp
    package let items: [ItemID]
  }

  /// The type of the `Completed` result: `ao` for unlocks, `o` for creations.
  package var emptyResult: DBusValue {
    switch self {
    case .unlock: .array(.objectPath, [])
    case .createCollection, .changePassword, .confirm, .deleteCollection:
      .objectPath(SecretPath.none)
    }
  }
}

package actor PromptTable {
  private struct Prompt {
    let owner: BusName
    let action: PromptAction
    /// Set once `Prompt()` was called: a prompt runs once.
    var started = false
    /// The running dialog, cancelled by Dismiss or when the owner leaves.
    var task: Task<Void, Never>?
  }

  private var prompts: [String: Prompt] = [:]
  private var nextID = 1

  /// The most prompts one connection may have pending; each holds a place in the dialog queue.
  static let maximumPerConnection = 64

  /// A new prompt of `owner` that will do `action` when it runs; its object path.
  package func make(owner: BusName, action: PromptAction) throws(DBusError) -> ObjectPath {
    guard prompts.values.count(where: { $0.owner == owner }) < Self.maximumPerConnection else {
      throw DBusError(
        .limitsExceeded,
        "this connection has \(Self.maximumPerConnection) prompts pending; run or dismiss them first"
      )
    }
    defer { nextID += 1 }
    let id = "p\(nextID)"
    prompts[id] = Prompt(owner: owner, action: action)
    return SecretPath.prompt(id).objectPath
  }

  /// Whether the prompt `id` is pending (made, not yet finished or dismissed).
  package func exists(_ id: String) -> Bool { prompts[id] != nil }

  /// The prompt `id` if `caller` made it; another connection's is `AccessDenied`.
  private func owned(_ id: String, caller: BusName) throws(DBusError) -> Prompt {
    guard let prompt = prompts[id] else {
      throw DBusError.noObject(SecretPath.prompt(id).objectPath)
    }
    guard prompt.owner == caller else { throw SecretServiceError.invalidCaller }
    return prompt
  }

  /// Marks the caller's prompt started and returns its action; a prompt runs once.
  package func start(_ id: String, caller: BusName) throws(DBusError) -> PromptAction {
    var prompt = try owned(id, caller: caller)
    guard !prompt.started else { throw SecretServiceError.promptShown }
    prompt.started = true
    prompts[id] = prompt
    return prompt.action
  }

  /// Records the task running a prompt; when the prompt has gone meanwhile (dismissed, owner
  /// left), the task is cancelled instead.
  package func attach(_ task: Task<Void, Never>, to id: String) {
    guard prompts[id] != nil else { return task.cancel() }
    prompts[id]?.task = task
  }

  /// Removes a finished prompt; true when it was still there, so that exactly one of finishing
  /// and dismissing emits `Completed`.
  package func finish(_ id: String) -> Bool {
    prompts.removeValue(forKey: id) != nil
  }

  /// Removes the caller's prompt and cancels its dialog; returns its action.
  package func dismiss(_ id: String, caller: BusName) throws(DBusError) -> PromptAction {
    let prompt = try owned(id, caller: caller)
    prompts[id] = nil
    prompt.task?.cancel()
    return prompt.action
  }

  /// A prompt that changes the password of `collection`: gnome-keyring's ChangeLock and
  /// ChangeWithPrompt. The in-memory session collection has none.
  package func passwordChange(for collection: String, caller: BusName) throws -> ObjectPath {
    guard collection != KeychainStore.sessionCollection else {
      throw DBusError(.notSupported, "the session collection has no password")
    }
    return try make(owner: caller, action: .changePassword(collection: collection))
  }

  /// Cancels and forgets the prompts of a connection that left; how many there were.
  package func drop(owner: BusName) -> Int {
    let mine = prompts.filter { $0.value.owner == owner }
    for prompt in mine.values { prompt.task?.cancel() }
    for id in mine.keys { prompts[id] = nil }
    return mine.count
  }

  /// How many prompts are pending.
  package var count: Int { prompts.count }
}
