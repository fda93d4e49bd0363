// SPDX-License-Identifier: MIT
//
// Open sessions, each owned by the connection that opened it. Kept behind a lock rather than in
// an actor because nearly every call looks a session up (GetSecret, CreateItem,
// SetSecret): an actor hop there moved each of those calls to another thread and back, which
// cost more than the rest of the call (profiled under keychain-load).

import KeychainCrypto
import KeychainDBus
import SecretServiceProtocol
import Synchronization

package final class SessionTable: Sendable {
  /// The most sessions one connection may hold open, a bound on a runaway client (each takes
  /// about 0.6 KiB). libsecret needs one, but SecretStorage 3.3 (Debian 12's) opens one per
  /// item whose secret it reads and never closes them: a script reading a whole keyring holds
  /// as many as it has items, which gnome-keyring allows without a bound.
  static let maximumPerConnection = 4096

  private struct Session {
    let owner: BusName
    package let cipher: SessionCipher
  }

  private struct Table {
    var sessions: [String: Session] = [:]
    var perOwner: [BusName: Int] = [:]
    var nextID = 1
  }

  private let table = Mutex(Table())

  /// A new session for `owner`; returns its object path. `LimitsExceeded` when the owner
  /// has `maximumPerConnection` open.
  package func open(owner: BusName, cipher: SessionCipher) throws(DBusError) -> ObjectPath {
    try table.withLock { (table) throws(DBusError) in
      guard table.perOwner[owner, default: 0] < Self.maximumPerConnection else {
        throw DBusError(
          .limitsExceeded,
          "this connection has \(Self.maximumPerConnection) sessions open; close one first")
      }
      let id = "s\(table.nextID)"
      table.nextID += 1
      table.sessions[id] = Session(owner: owner, cipher: cipher)
      table.perOwner[owner, default: 0] += 1
      return SecretPath.session(id).objectPath
    }
  }

  package func exists(_ id: String) -> Bool { table.withLock { $0.sessions[id] != nil } }

  /// The cipher of a session the caller owns; `NoSession` for any other path, including a
  /// session another connection opened, worded as gnome-keyring words it: for reading secrets,
  /// or with `wrapping` for the session a given secret came in.
  package func cipher(_ path: ObjectPath, caller: BusName, wrapping: Bool = false) throws(DBusError)
    -> SessionCipher
  {
    let session: Session? =
      if case .session(let id)? = SecretPath(path) { table.withLock { $0.sessions[id] } } else {
        nil
      }
    guard let session, session.owner == caller else {
      throw wrapping ? SecretServiceError.noWrappingSession : SecretServiceError.noSession
    }
    return session.cipher
  }

  /// A password the caller sent in `secret`, decrypted with the session it names (which must
  /// be the caller's): for the master-password and import calls.
  package func password(in secret: Secret, caller: BusName) throws -> SecureBytes {
    try cipher(secret.session, caller: caller, wrapping: true)
      .decrypt(parameters: secret.parameters, value: secret.value)
  }

  /// `secret` encrypted for the caller's `session`, to send back to it: for the calls that
  /// return a secret that is no item's (a new recovery key).
  package func secret(
    _ secret: SecureBytes, in session: ObjectPath, caller: BusName, contentType: String
  )
    throws -> Secret
  {
    let (parameters, value) = try cipher(session, caller: caller).encrypt(secret)
    return Secret(session: session, parameters: parameters, value: value, contentType: contentType)
  }

  /// Closes the caller's session; another connection's is `AccessDenied`.
  package func close(_ id: String, caller: BusName) throws(DBusError) {
    try table.withLock { (table) throws(DBusError) in
      guard let session = table.sessions[id] else { throw SecretServiceError.noSession }
      guard session.owner == caller else { throw SecretServiceError.invalidCaller }
      table.sessions[id] = nil
      table.perOwner[caller, default: 1] -= 1
    }
  }

  /// Closes every session of `peer`; returns how many there were.
  func drop(_ peer: BusName) -> Int {
    table.withLock { table in
      let before = table.sessions.count
      table.sessions = table.sessions.filter { $0.value.owner != peer }
      table.perOwner[peer] = nil
      return before - table.sessions.count
    }
  }

  package var count: Int { table.withLock { $0.sessions.count } }
}
