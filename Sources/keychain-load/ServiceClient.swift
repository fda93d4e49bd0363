// SPDX-License-Identifier: MIT

import KeychainCrypto
import KeychainDBus
import SecretServiceProtocol

/// A wrong answer from the provider: the run stops with it.
struct WrongAnswer: Error, CustomStringConvertible {
  let description: String
}

/// The calls the load generator makes, each checking what comes back.
struct ServiceClient {
  let connection: Connection
  let collection: ObjectPath
  static let service: ObjectPath = "/org/freedesktop/secrets"

  struct Session {
    let path: ObjectPath
    let cipher: SessionCipher
  }

  private func call(
    _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ body: [DBusValue] = []
  ) async throws -> [DBusValue] {
    try await connection.callSecretService(path, interface, member, body)
  }

  func ping() async throws {
    _ = try await call(Self.service, .peer, "Ping")
  }

  func openSession(_ algorithm: SessionAlgorithm) async throws -> Session {
    let client = try SessionNegotiation.Client(algorithm)
    let (output, path) = try await connection.callSecretService(
      Self.service, SecretService.ServiceMethods.openSession, algorithm.rawValue, client.input)
    return Session(path: path, cipher: try client.finish(output: output))
  }

  func close(_ session: ObjectPath) async throws {
    try await connection.callSecretService(session, SecretService.SessionMethods.close)
  }

  /// The run name of the items `keychain-load seed` stores.
  static let seedRun = "seed"

  static func label(_ index: Int) -> String { "load item \(index)" }

  static func attributes(index: Int, run: String) -> [String: String] {
    ["keychain-load": run, "n": String(index), "kind": "load"]
  }

  static func secret(index: Int, run: String) -> [UInt8] {
    Array("secret \(index) of \(run)".utf8)
  }

  /// CreateItem for item `index`, its secret `secret` (by default its usual one).
  func createItem(
    index: Int, run: String, session: Session, secret plain: [UInt8]? = nil, replace: Bool = false
  ) async throws -> ObjectPath {
    let (parameters, value) = try session.cipher.encrypt(
      SecureBytes(copying: plain ?? Self.secret(index: index, run: run)))
    let properties = NewItemProperties(
      label: Self.label(index), attributes: Self.attributes(index: index, run: run)
    ).dbusProperties
    let secret = Secret(
      session: session.path, parameters: parameters, value: value, contentType: "text/plain")
    let (item, prompt) = try await connection.callSecretService(
      collection, SecretService.CollectionMethods.createItem, properties, secret, replace)
    guard item.rawValue.count > 1, prompt.rawValue == "/" else {
      throw WrongAnswer(description: "CreateItem answered \(item), \(prompt) (collection locked?)")
    }
    return item
  }

  /// SearchItems for item `index` (-1: one that does not exist): the unlocked and locked hits.
  func search(run: String, index: Int) async throws -> (
    unlocked: [ObjectPath], locked: [ObjectPath]
  ) {
    var attributes = Self.attributes(index: index, run: run)
    if index < 0 { attributes["n"] = "none" }
    return try await connection.callSecretService(
      Self.service, SecretService.ServiceMethods.searchItems, attributes)
  }

  /// SearchItems for item `index` (-1: one that does not exist) must find exactly `found`.
  func expectSearch(run: String, index: Int, found: [ObjectPath]) async throws {
    let (unlocked, locked) = try await search(run: run, index: index)
    guard unlocked == found, locked.isEmpty else {
      throw WrongAnswer(description: "SearchItems for \(index) found \(unlocked) / \(locked)")
    }
  }

  /// Collection.SearchItems on the filled collection (Python SecretStorage and keyring search
  /// this way): it must find exactly `found`.
  func expectScopedSearch(run: String, index: Int, found: ObjectPath) async throws {
    let results = try await connection.callSecretService(
      collection, SecretService.CollectionMethods.searchItems,
      Self.attributes(index: index, run: run))
    guard results == [found] else {
      throw WrongAnswer(description: "Collection.SearchItems for \(index) found \(results)")
    }
  }

  /// GetSecret of `item`, which must hold `expected`.
  func expectSecret(_ item: ObjectPath, _ expected: [UInt8], session: Session) async throws {
    let secret = try await connection.callSecretService(
      item, SecretService.ItemMethods.getSecret, session.path)
    let plain = try session.cipher.decrypt(parameters: secret.parameters, value: secret.value)
    guard plain == SecureBytes(copying: expected) else {
      throw WrongAnswer(description: "the secret of \(item) came back different")
    }
  }

  /// The one unlocked item SearchItems finds for `index`.
  func find(run: String, index: Int) async throws -> ObjectPath {
    let (unlocked, locked) = try await search(run: run, index: index)
    guard unlocked.count == 1, locked.isEmpty else {
      throw WrongAnswer(description: "SearchItems for \(index) found \(unlocked) / \(locked)")
    }
    return unlocked[0]
  }

  func expectSecret(_ item: ObjectPath, index: Int, run: String, session: Session) async throws {
    let secret = try await connection.callSecretService(
      item, SecretService.ItemMethods.getSecret, session.path)
    try check(secret, index: index, run: run, session: session)
  }

  func expectSecrets(_ items: [ObjectPath], _ indexes: [Int], run: String, session: Session)
    async throws
  {
    let secrets = try await connection.callSecretService(
      Self.service, SecretService.ServiceMethods.getSecrets, items, session.path)
    guard secrets.count == Set(items).count else {
      throw WrongAnswer(description: "GetSecrets returned \(secrets.count) of \(items.count)")
    }
    for (item, index) in zip(items, indexes) {
      guard let secret = secrets[item] else {
        throw WrongAnswer(description: "no secret for \(item)")
      }
      try check(secret, index: index, run: run, session: session)
    }
  }

  private func check(_ secret: Secret, index: Int, run: String, session: Session) throws {
    let plain = try session.cipher.decrypt(parameters: secret.parameters, value: secret.value)
    guard plain == SecureBytes(copying: Self.secret(index: index, run: run)) else {
      throw WrongAnswer(description: "the secret of item \(index) came back different")
    }
  }

  /// gnome-keyring's UnlockWithMasterPassword, the password sent through `session`.
  func unlock(_ collection: ObjectPath, _ password: String, session: Session) async throws {
    try await connection.callSecretService(
      Self.service, SecretService.GnomeKeyringMethods.unlockWithMasterPassword, collection,
      try wrap(password, session))
  }

  /// gnome-keyring's ChangeWithMasterPassword, the passwords sent through `session`.
  func changePassword(
    _ collection: ObjectPath, from old: String, to new: String, session: Session
  ) async throws {
    try await connection.callSecretService(
      Self.service, SecretService.GnomeKeyringMethods.changeWithMasterPassword, collection,
      try wrap(old, session), try wrap(new, session))
  }

  private func wrap(_ password: String, _ session: Session) throws -> Secret {
    let (parameters, value) = try session.cipher.encrypt(
      SecureBytes(copying: Array(password.utf8)))
    return Secret(
      session: session.path, parameters: parameters, value: value, contentType: "text/plain")
  }

  func delete(_ item: ObjectPath) async throws {
    _ = try await connection.callSecretService(item, SecretService.ItemMethods.delete)
  }
}
