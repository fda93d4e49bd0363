// SPDX-License-Identifier: MIT
//
// Open sessions, each owned by the connection that opened it. Kept behind a lock rather than in
// the ServiceState actor because nearly every call looks a session up (GetSecret, CreateItem,
// SetSecret): an actor hop there moved each of those calls to another thread and back, which
// cost more than the rest of the call (profiled under keychain-load).

import KeychainDBus
import SecretServiceProtocol
import Synchronization

final class SessionTable: Sendable {
  private struct Session {
    let owner: BusName
    let cipher: SessionCipher
  }

  private struct Table {
    var sessions: [String: Session] = [:]
    var nextID = 1
  }

  private let table = Mutex(Table())

  /// A new session for `owner`; returns its object path.
  func open(owner: BusName, cipher: SessionCipher) -> ObjectPath {
    table.withLock { table in
      let id = "s\(table.nextID)"
      table.nextID += 1
      table.sessions[id] = Session(owner: owner, cipher: cipher)
      return SecretPath.session(id).objectPath
    }
  }

  func exists(_ id: String) -> Bool { table.withLock { $0.sessions[id] != nil } }

  /// The cipher of a session the caller owns; `NoSession` for any other path, including a
  /// session another connection opened.
  func cipher(_ path: ObjectPath, caller: BusName) throws(DBusError) -> SessionCipher {
    let session: Session? =
      if case .session(let id)? = SecretPath(path) { table.withLock { $0.sessions[id] } } else {
        nil
      }
    guard let session, session.owner == caller else {
      throw DBusError(.noSession, "no such session \(path) for this connection")
    }
    return session.cipher
  }

  func close(_ id: String, caller: BusName) throws(DBusError) {
    try table.withLock { (table) throws(DBusError) in
      guard let session = table.sessions[id], session.owner == caller else {
        throw DBusError(.noSession, "no such session for this connection")
      }
      table.sessions[id] = nil
    }
  }

  /// Closes every session of `peer`; returns how many there were.
  func drop(_ peer: BusName) -> Int {
    table.withLock { table in
      let before = table.sessions.count
      table.sessions = table.sessions.filter { $0.value.owner != peer }
      return before - table.sessions.count
    }
  }

  var count: Int { table.withLock { $0.sessions.count } }
}
