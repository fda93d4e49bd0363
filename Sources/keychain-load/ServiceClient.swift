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
    let reply = try await call(
      Self.service, SecretService.serviceInterface, "OpenSession",
      [.string(algorithm.rawValue), .variant(client.input)])
    guard reply.count == 2, case .variant(let output) = reply[0], let path = reply[1].objectPath
    else { throw WrongAnswer(description: "OpenSession answered \(reply)") }
    return Session(path: path, cipher: try client.finish(output: output))
  }

  func close(_ session: ObjectPath) async throws {
    _ = try await call(session, SecretService.sessionInterface, "Close")
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
    let properties: [String: DBusValue] = [
      "org.freedesktop.Secret.Item.Label": .string(Self.label(index)),
      "org.freedesktop.Secret.Item.Attributes": Self.attributes(index: index, run: run).dbusValue,
    ]
    let secret = Secret(
      session: session.path, parameters: parameters, value: value, contentType: "text/plain")
    let reply = try await call(
      collection, SecretService.collectionInterface, "CreateItem",
      [properties.dbusValue, secret.dbusValue, .boolean(replace)])
    guard reply.count == 2, let item = reply[0].objectPath, item.rawValue.count > 1,
      reply[1].objectPath?.rawValue == "/"
    else { throw WrongAnswer(description: "CreateItem answered \(reply) (collection locked?)") }
    return item
  }

  /// SearchItems for item `index` (-1: one that does not exist): the unlocked and locked hits.
  func search(run: String, index: Int) async throws -> (
    unlocked: [ObjectPath], locked: [ObjectPath]
  ) {
    var attributes = Self.attributes(index: index, run: run)
    if index < 0 { attributes["n"] = "none" }
    let reply = try await call(
      Self.service, SecretService.serviceInterface, "SearchItems", [attributes.dbusValue])
    return (try [ObjectPath](dbusValue: reply[0]), try [ObjectPath](dbusValue: reply[1]))
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
    let reply = try await call(
      collection, SecretService.collectionInterface, "SearchItems",
      [Self.attributes(index: index, run: run).dbusValue])
    guard try [ObjectPath](dbusValue: reply[0]) == [found] else {
      throw WrongAnswer(description: "Collection.SearchItems for \(index) found \(reply)")
    }
  }

  /// GetSecret of `item`, which must hold `expected`.
  func expectSecret(_ item: ObjectPath, _ expected: [UInt8], session: Session) async throws {
    let reply = try await call(
      item, SecretService.itemInterface, "GetSecret", [.objectPath(session.path)])
    let secret = try Secret(dbusValue: reply[0])
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
    let reply = try await call(
      item, SecretService.itemInterface, "GetSecret", [.objectPath(session.path)])
    try check(try Secret(dbusValue: reply[0]), index: index, run: run, session: session)
  }

  func expectSecrets(_ items: [ObjectPath], _ indexes: [Int], run: String, session: Session)
    async throws
  {
    let reply = try await call(
      Self.service, SecretService.serviceInterface, "GetSecrets",
      [items.dbusValue, .objectPath(session.path)])
    let secrets = try [ObjectPath: Secret](dbusValue: reply[0])
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

  func property(_ path: ObjectPath, _ interface: InterfaceName, _ name: String) async throws
    -> DBusValue
  {
    let reply = try await call(
      path, .properties, "Get", [.string(interface.rawValue), .string(name)])
    guard case .variant(let value)? = reply.first else {
      throw WrongAnswer(description: "Get \(name) answered \(reply)")
    }
    return value
  }

  /// gnome-keyring's UnlockWithMasterPassword or ChangeWithMasterPassword, the passwords sent
  /// through `session`.
  func master(
    _ member: MemberName, _ collection: ObjectPath, _ passwords: [String], session: Session
  )
    async throws
  {
    let secrets = try passwords.map { password in
      let (parameters, value) = try session.cipher.encrypt(
        SecureBytes(copying: Array(password.utf8)))
      return Secret(
        session: session.path, parameters: parameters, value: value, contentType: "text/plain")
    }
    _ = try await call(
      Self.service, SecretService.gnomeInternalInterface, member,
      [.objectPath(collection)] + secrets.map(\.dbusValue))
  }

  func delete(_ item: ObjectPath) async throws {
    _ = try await call(item, SecretService.itemInterface, "Delete")
  }
}
