// SPDX-License-Identifier: MIT
//
// The Secret Service object tree with no bus: SecretServiceDaemon's object server behind an
// InMemoryTransport, over a store in a temporary directory. The first of the three depths the
// tree is tested at (then in process on a private bus, then the real keychaind with real
// clients): dispatch, argument checks, the errors' names, sessions tied to their caller, and
// which signals go out before and after a reply.

import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import KeychainTesting
import Logging
import SecretServiceProtocol
import SecretServiceServer
import Testing

@Suite struct InMemoryTreeTests {
  static let service: ObjectPath = "/org/freedesktop/secrets"
  static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"

  /// A store with an unlocked `login` collection, served in memory.
  final class Harness: Sendable {
    let login: LoginStore
    var store: KeychainStore { login.store }
    let transport: InMemoryTransport
    let log = CapturedLog()

    init() throws {
      login = try LoginStore("in-memory-tree")
      let daemon = SecretServiceDaemon(
        store: login.store, pinentry: nil, logger: log.logger(label: "in-memory-tree"))
      transport = InMemoryTransport(serving: daemon.objectServer())
    }

    /// The reply's body, or the error's name and text as a failure.
    func call(
      _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
      _ body: [DBusValue] = [], from sender: BusName? = nil
    ) async throws -> [DBusValue] {
      try InMemoryTransport.body(
        of: await transport.call(path, interface, member, body, from: sender))
    }

    func openPlainSession(from sender: BusName? = nil) async throws -> ObjectPath {
      try await transport.call(
        InMemoryTreeTests.service, SecretService.ServiceMethods.openSession, "plain",
        .string(""), from: sender
      ).1
    }

    func createItem(_ session: ObjectPath, label: String, secret: String) async throws
      -> ObjectPath
    {
      let properties: [String: DBusValue] = [
        ItemProperties.label: .string(label),
        ItemProperties.attributes: ["app": "mail", "user": label].dbusValue,
      ]
      let value = Secret(
        session: session, parameters: [], value: Array(secret.utf8), contentType: "text/plain")
      return try await transport.call(
        InMemoryTreeTests.login, SecretService.CollectionMethods.createItem, properties, value,
        false
      ).0
    }
  }

  @Test func itemsAreStoredFoundAndReadBack() async throws {
    let harness = try Harness()
    let session = try await harness.openPlainSession()
    let item = try await harness.createItem(session, label: "alice", secret: "s3cret")
    let (unlocked, locked) = try await harness.transport.call(
      Self.service, SecretService.ServiceMethods.searchItems, ["app": "mail", "user": "alice"])
    #expect(unlocked == [item] && locked.isEmpty)
    let secret = try await harness.transport.call(
      item, SecretService.ItemMethods.getSecret, session)
    #expect(secret.value == Array("s3cret".utf8))
    let label = try await harness.call(
      item, .properties, "Get", [.string(SecretService.itemInterface.rawValue), .string("Label")])
    #expect(label == [.variant(.string("alice"))])
  }

  /// gnome-keyring's order: ItemCreated before the reply, the collection's new Items
  /// (PropertiesChanged) after it.
  @Test func signalsGoOutAroundTheReplyInGnomeKeyringsOrder() async throws {
    let harness = try Harness()
    let session = try await harness.openPlainSession()
    _ = harness.transport.takeSent()
    let item = try await harness.createItem(session, label: "bob", secret: "x")
    var sent: [Message] = []
    for _ in 0..<500 where !sent.contains(where: { $0.member == "PropertiesChanged" }) {
      sent += harness.transport.takeSent()
      try await Task.sleep(for: .milliseconds(10))  // a bound, not a speed check
    }
    let kinds = sent.map { ($0.kind, $0.member?.rawValue ?? "") }
    let created = try #require(kinds.firstIndex { $0.1 == "ItemCreated" }, "\(kinds)")
    let reply = try #require(kinds.firstIndex { $0.0 == .methodReturn }, "\(kinds)")
    let changed = try #require(kinds.firstIndex { $0.1 == "PropertiesChanged" }, "\(kinds)")
    #expect(created < reply && reply < changed, "\(kinds)")
    #expect(sent[created].body == [.objectPath(item)])
  }

  @Test func failuresHaveTheirNames() async throws {
    let harness = try Harness()
    let session = try await harness.openPlainSession()
    let item = try await harness.createItem(session, label: "carol", secret: "x")
    func error(_ body: () async throws -> [DBusValue]) async -> ErrorName? {
      do {
        _ = try await body()
        return nil
      } catch let error as DBusError {
        return error.name
      } catch {
        return nil
      }
    }
    // A store error (the collection is locked) rendered at the server's boundary.
    try harness.store.lock("login")
    #expect(
      await error {
        try await harness.call(
          item, SecretService.itemInterface, SecretService.ItemMethods.getSecret.name,
          [.objectPath(session)])
      } == ErrorName(stringLiteral: "org.freedesktop.Secret.Error.IsLocked"))
    // Another caller's session is not this caller's.
    try harness.store.unlock("login", password: SecureBytes(copying: Array("pw".utf8)))
    #expect(
      await error {
        try await harness.call(
          item, SecretService.itemInterface, SecretService.ItemMethods.getSecret.name,
          [.objectPath(session)],
          from: BusName(validating: ":1.7"))
      } == ErrorName(stringLiteral: "org.freedesktop.Secret.Error.NoSession"))
    // Arguments of the wrong type, an object that is not there (UnknownMethod, as GDBus and so
    // gnome-keyring name it), a method that is not.
    #expect(
      await error {
        try await harness.call(
          item, SecretService.itemInterface, SecretService.ItemMethods.getSecret.name,
          [.string("no")])
      } == .invalidArgs)
    #expect(
      await error {
        try await harness.call(
          "/org/freedesktop/secrets/collection/nope", .properties, "Get",
          [.string(SecretService.collectionInterface.rawValue), .string("Label")])
      } == .unknownMethod)
    #expect(
      await error {
        try await harness.call(Self.service, SecretService.serviceInterface, "Frobnicate")
      } == .unknownMethod)
    // Each of these errors is one its method declares.
    #expect(harness.log.undeclaredErrors == [])
  }
}
