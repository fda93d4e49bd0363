// SPDX-License-Identifier: MIT
//
// The daemon's per-caller state: open sessions (in their own table, see SessionTable) and, in
// this actor, pending prompts, each owned by the connection that made it and dropped when that
// connection leaves the bus. The store holds everything else.

import KeychainDBus
import KeychainPrompt
import KeychainStore
import Logging
import SecretServiceProtocol
import Synchronization

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

package actor ServiceState {
  struct Prompt {
    let owner: BusName
    let action: PromptAction
    /// Set once `Prompt()` was called: a prompt runs once.
    var started = false
    /// The running dialog, cancelled by Dismiss or when the owner leaves.
    var task: Task<Void, Never>?
  }

  package nonisolated let store: KeychainStore
  package nonisolated let logger: Logger
  package nonisolated let prompter: PromptRunner
  package nonisolated let sessions = SessionTable()
  /// Holds calls while the daemon finishes starting (see `CallGate`).
  package nonisolated let gate: CallGate
  /// When a client last read or wrote a secret of each collection, or it was unlocked (for
  /// "lock after N minutes unused"); a collection not yet seen counts from when it is first
  /// asked about.
  package nonisolated let lastUse = Mutex<[String: Duration]>([:])
  /// The time `lastUse` and the lock timers go by.
  package nonisolated let clock: any DaemonClock
  /// keychaind.conf's lock settings, under each collection's own (`LockPolicy`).
  package nonisolated let lockDefaults: LockPolicy
  /// Each collection's own lock settings as last read from the store, and a generation that
  /// `lockPoliciesChanged` moves on, so that a read racing a change is not kept.
  private nonisolated let cachedPolicies = Mutex<
    (policies: [String: LockPolicy]?, generation: Int)
  >(
    (nil, 0))

  /// Each collection's own lock settings. Read from the store once and kept: keychaind is the
  /// store's only writer and says when they change, and the lock timers ask four times a minute.
  package nonisolated func lockPolicies() throws -> [String: LockPolicy] {
    let (cached, generation) = cachedPolicies.withLock { ($0.policies, $0.generation) }
    if let cached { return cached }
    let read = try store.lockPolicies()
    cachedPolicies.withLock { if $0.generation == generation { $0.policies = read } }
    return read
  }

  /// After a lock policy was set or a collection deleted: the next read goes to the store.
  package nonisolated func lockPoliciesChanged() {
    cachedPolicies.withLock { $0 = (nil, $0.generation + 1) }
  }

  /// Notes that a client read or wrote a secret of `collections` now.
  package nonisolated func noteUse(_ collections: some Sequence<String>) {
    lastUse.withLock { uses in
      let now = clock.now
      for collection in collections { uses[collection] = now }
    }
  }
  private var prompts: [String: Prompt] = [:]
  private var nextID = 1

  /// Every unlock with a password goes through it.
  package nonisolated let unlocker: Unlocker
  /// Per-application access and the audit log (see `AccessControl`).
  package nonisolated let access: AccessControl

  package init(
    store: KeychainStore, pinentry: String?, logger: Logger, holdingCalls: Bool,
    passwordHook: PasswordHook?, lockDefaults: LockPolicy, clock: any DaemonClock,
    access: AccessSettings
  ) {
    self.store = store
    self.access = AccessControl(access, store: store, logger: logger)
    self.clock = clock
    self.lockDefaults = lockDefaults
    gate = CallGate(open: !holdingCalls)
    self.logger = logger
    unlocker = Unlocker(store: store, hook: passwordHook, logger: logger)
    prompter = PromptRunner(
      store: store, pinentry: pinentry, logger: logger, unlocker: unlocker, access: self.access)
  }

  private func makeID(_ prefix: String) -> String {
    defer { nextID += 1 }
    return "\(prefix)\(nextID)"
  }

  // MARK: Prompts

  /// The most prompts one connection may have pending; each holds a place in the dialog queue.
  static let maximumPromptsPerConnection = 64

  package func makePrompt(owner: BusName, action: PromptAction) throws(DBusError) -> ObjectPath {
    guard prompts.values.count(where: { $0.owner == owner }) < Self.maximumPromptsPerConnection
    else {
      throw DBusError(
        .limitsExceeded,
        "this connection has \(Self.maximumPromptsPerConnection) prompts pending; run or dismiss them first"
      )
    }
    let id = makeID("p")
    prompts[id] = Prompt(owner: owner, action: action)
    return SecretPath.prompt(id).objectPath
  }

  package func promptExists(_ id: String) -> Bool { prompts[id] != nil }

  /// The prompt `id` if `caller` made it; another connection's is `AccessDenied`.
  private func ownedPrompt(_ id: String, caller: BusName) throws(DBusError) -> Prompt {
    guard let prompt = prompts[id] else {
      throw DBusError.noObject(SecretPath.prompt(id).objectPath)
    }
    guard prompt.owner == caller else { throw SecretServiceError.invalidCaller }
    return prompt
  }

  /// Marks the caller's prompt started and returns its action; a prompt runs once.
  package func startPrompt(_ id: String, caller: BusName) throws(DBusError) -> PromptAction {
    var prompt = try ownedPrompt(id, caller: caller)
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
  package func finishPrompt(_ id: String) -> Bool {
    prompts.removeValue(forKey: id) != nil
  }

  /// Removes the caller's prompt and cancels its dialog; returns its action.
  package func dismissPrompt(_ id: String, caller: BusName) throws(DBusError) -> PromptAction {
    let prompt = try ownedPrompt(id, caller: caller)
    prompts[id] = nil
    prompt.task?.cancel()
    return prompt.action
  }

  /// A prompt that changes the password of `collection`: gnome-keyring's ChangeLock and
  /// ChangeWithPrompt. The in-memory session collection has none.
  package func passwordChangePrompt(for collection: String, caller: BusName) throws -> ObjectPath {
    guard collection != KeychainStore.sessionCollection else {
      throw DBusError(.notSupported, "the session collection has no password")
    }
    return try makePrompt(owner: caller, action: .changePassword(collection: collection))
  }

  // MARK: Locking and unlocking

  /// Every API's announcer of changes (see `StoreEvent`), in the order they were added: the
  /// Secret Service's first (`SecretServiceDaemon` adds it as it is made).
  nonisolated var announcers: [any ChangeAnnouncer] { addedAnnouncers.withLock { $0 } }
  private nonisolated let addedAnnouncers = Mutex<[any ChangeAnnouncer]>([])

  /// Adds the announcer of an API (it hears every event after those added before it).
  package nonisolated func addAnnouncer(_ announcer: any ChangeAnnouncer) {
    addedAnnouncers.withLock { $0.append(announcer) }
  }

  /// Locks every unlocked collection for which `applies` holds (the in-memory session one has
  /// no lock) and returns their names: for LockService and for the locks that come from
  /// outside any call (screen lock, sleep, timers).
  package nonisolated func lockEverything(where applies: (String) -> Bool = { _ in true }) throws
    -> [String]
  {
    let names = try store.collections().map(\.name).filter {
      $0 != KeychainStore.sessionCollection && !store.isLocked($0) && applies($0)
    }
    for name in names { try? store.lock(name) }  // one deleted meanwhile is not an error
    return names.filter { store.isLocked($0) }
  }

  /// After `collections` were unlocked: their search index is checked item by item in the
  /// background, and what damage showed is repaired and logged by object path.
  package nonisolated func unlocked(_ collections: [String]) {
    noteUse(collections)
    access.collectionsUnlocked(collections)
    access.checkKeptMode(in: collections)
    if access.isOn { access.pinOwners(in: collections) }
    let (store, logger) = (store, logger)
    for collection in collections {
      Task {
        do {
          let repair = try await Blocking.run { try store.repairIndex(collection) }
          MemoryRelease.soon()  // it read every item of the collection
          func paths(_ items: [ItemID]) -> String {
            items.map { Resolver.path(of: $0).rawValue }.joined(separator: ", ")
          }
          if !repair.rebuilt.isEmpty {
            logger.warning(
              "rebuilt the damaged search index of \(repair.rebuilt.count) item(s) of \(collection): \(paths(repair.rebuilt))"
            )
          }
          if !repair.unreadable.isEmpty {
            logger.error(
              "\(repair.unreadable.count) item(s) of \(collection) are damaged and do not decrypt: \(paths(repair.unreadable))"
            )
          }
        } catch {
          logger.warning("the search index of \(collection) could not be checked: \(error)")
        }
      }
    }
  }

  // MARK: Callers

  /// Forgets everything a departed connection owned.
  package func dropPeer(_ peer: BusName) {
    let before = prompts.count
    for prompt in prompts.values where prompt.owner == peer { prompt.task?.cancel() }
    prompts = prompts.filter { $0.value.owner != peer }
    let dropped = sessions.drop(peer) + before - prompts.count
    if dropped > 0 { logger.debug("dropped \(dropped) sessions and prompts of \(peer)") }
  }

  package var counts: (sessions: Int, prompts: Int) { (sessions.count, prompts.count) }
}
