// SPDX-License-Identifier: MIT
//
// One Secret Service provider made ready for the parity tests (GnomeKeyringParityTests and
// GnomeKeyringReadParityTests): the same objects on gnome-keyring and on keychaind, so that the
// same calls can be made to both and their answers compared.

import Foundation
import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

private let service: ObjectPath = "/org/freedesktop/secrets"
private let login: ObjectPath = "/org/freedesktop/secrets/collection/login"

/// One provider made ready for the calls: a session of ours and one of another connection, an
/// item in the unlocked login collection, and a collection "Parity" locked with an item in it.
/// (Also used by `GnomeKeyringReadParityTests`.)
struct Prepared {
  let client: Connection
  let other: Connection
  let session: ObjectPath
  let foreignSession: ObjectPath
  let item: ObjectPath
  let lockedItem: ObjectPath
  let parity: ObjectPath

  static let password = "password"

  init(bus: PrivateBus) async throws {
    client = try await bus.connect()
    other = try await bus.connect()
    session = try await Self.openSession(client)
    foreignSession = try await Self.openSession(other)
    item = try await Self.createItem(client, session, in: login, label: "open")
    parity = try #require(
      try await client.callSecretService(
        service, SecretService.gnomeInternalInterface,
        SecretService.GnomeKeyringMethods.createWithMasterPassword.name,
        [
          [CollectionProperties.label: DBusValue.string("Parity")].dbusValue,
          Self.secret(session, "pw2"),
        ])[0].objectPath)
    lockedItem = try await Self.createItem(client, session, in: parity, label: "locked")
    _ = try await client.callSecretService(
      service, SecretService.serviceInterface, SecretService.ServiceMethods.lock.name,
      [[parity].dbusValue])
  }

  private static func openSession(_ connection: Connection) async throws -> ObjectPath {
    try #require(
      try await connection.callSecretService(
        service, SecretService.serviceInterface, SecretService.ServiceMethods.openSession.name,
        [.string("plain"), .variant(.string(""))])[1].objectPath)
  }

  static func createItem(
    _ client: Connection, _ session: ObjectPath, in collection: ObjectPath, label: String
  ) async throws -> ObjectPath {
    try #require(
      try await client.callSecretService(
        collection, SecretService.collectionInterface,
        SecretService.CollectionMethods.createItem.name,
        [
          [
            ItemProperties.label: DBusValue.string(label),
            ItemProperties.attributes: ["parity": label].dbusValue,
          ].dbusValue, secret(session, "secret"), .boolean(false),
        ])[0].objectPath)
  }

  static func secret(_ session: ObjectPath, _ text: String) -> DBusValue {
    Secret(session: session, parameters: [], value: Array(text.utf8), contentType: "text/plain")
      .dbusValue
  }

  /// What a call answered: "ok", or the error's name and message with this provider's own
  /// item and session paths replaced by placeholders.
  func outcome(
    _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ body: [DBusValue],
    from connection: Connection? = nil
  ) async -> String {
    do {
      _ = try await (connection ?? client).callSecretService(path, interface, member, body)
      return "ok"
    } catch {
      var text = "\(error.name.rawValue): \(error.message)"
      for (real, placeholder) in [
        (lockedItem, "<locked item>"), (item, "<item>"), (foreignSession, "<foreign session>"),
        (session, "<session>"),
      ] {
        text = text.replacingOccurrences(of: real.rawValue, with: placeholder)
      }
      return text
    }
  }
}
