// SPDX-License-Identifier: MIT
//
// The daemon's per-caller state in one actor: open sessions and pending prompts, each owned by
// the connection that made it and dropped when that connection leaves the bus. The store holds
// everything else.

import KeychainDBus
import KeychainStore
import Logging
import SecretServiceProtocol

/// What a prompt does when it runs.
enum PromptAction: Sendable {
  /// Unlock these collections; on success the result is `objects` (the paths as given).
  case unlock(collections: [String], objects: [ObjectPath])
  /// Create a collection with this label and alias; the result is its path.
  case createCollection(label: String, alias: String)

  /// The type of the `Completed` result: `ao` for unlocks, `o` for creations.
  var emptyResult: DBusValue {
    switch self {
    case .unlock: .array(.objectPath, [])
    case .createCollection: .objectPath(SecretPath.none)
    }
  }
}

actor ServiceState {
  struct Session {
    let owner: BusName
    let cipher: SessionCipher
  }

  struct Prompt {
    let owner: BusName
    let action: PromptAction
  }

  let store: KeychainStore
  let logger: Logger
  private var sessions: [String: Session] = [:]
  private var prompts: [String: Prompt] = [:]
  private var nextID = 1

  init(store: KeychainStore, logger: Logger) {
    self.store = store
    self.logger = logger
  }

  private func makeID(_ prefix: String) -> String {
    defer { nextID += 1 }
    return "\(prefix)\(nextID)"
  }

  // MARK: Sessions

  func openSession(owner: BusName, cipher: SessionCipher) -> ObjectPath {
    let id = makeID("s")
    sessions[id] = Session(owner: owner, cipher: cipher)
    return SecretPath.session(id).objectPath
  }

  func sessionExists(_ id: String) -> Bool { sessions[id] != nil }

  /// The cipher of a session the caller owns; `NoSession` for any other path, including a
  /// session another connection opened.
  func cipher(_ path: ObjectPath, caller: BusName) throws(DBusError) -> SessionCipher {
    guard case .session(let id)? = SecretPath(path), let session = sessions[id],
      session.owner == caller
    else { throw DBusError(.noSession, "no such session \(path) for this connection") }
    return session.cipher
  }

  func closeSession(_ id: String, caller: BusName) throws(DBusError) {
    guard let session = sessions[id], session.owner == caller else {
      throw DBusError(.noSession, "no such session for this connection")
    }
    sessions[id] = nil
  }

  // MARK: Prompts

  func makePrompt(owner: BusName, action: PromptAction) -> ObjectPath {
    let id = makeID("p")
    prompts[id] = Prompt(owner: owner, action: action)
    return SecretPath.prompt(id).objectPath
  }

  func promptExists(_ id: String) -> Bool { prompts[id] != nil }

  /// Takes a prompt out of the table for the caller that owns it: a prompt runs once.
  func takePrompt(_ id: String, caller: BusName) throws(DBusError) -> Prompt {
    guard let prompt = prompts[id], prompt.owner == caller else {
      throw DBusError(.noSuchObject, "no such prompt for this connection")
    }
    prompts[id] = nil
    return prompt
  }

  // MARK: Callers

  /// Forgets everything a departed connection owned.
  func dropPeer(_ peer: BusName) {
    let before = sessions.count + prompts.count
    sessions = sessions.filter { $0.value.owner != peer }
    prompts = prompts.filter { $0.value.owner != peer }
    let dropped = before - sessions.count - prompts.count
    if dropped > 0 { logger.debug("dropped \(dropped) sessions and prompts of \(peer)") }
  }

  var counts: (sessions: Int, prompts: Int) { (sessions.count, prompts.count) }
}
