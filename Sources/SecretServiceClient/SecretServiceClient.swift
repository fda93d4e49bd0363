// SPDX-License-Identifier: MIT
//
// A client of any Secret Service provider on the bus (keychaind, gnome-keyring, KWallet): the
// calls the Keychain library and keychainctl make, with secrets moving through an encrypted
// session and prompts run to completion. It speaks only the protocol; it never sees a store.

import Foundation
import KeychainCrypto
import KeychainDBus
import SecretServiceProtocol

/// An item as the provider describes it.
public struct RemoteItem: Sendable, Hashable {
  public var path: ObjectPath
  public var label: String
  public var attributes: [String: String]
  public var created: Date
  public var modified: Date
}

/// One connection to the provider that owns `org.freedesktop.secrets`, with one session.
public struct SecretServiceClient: Sendable {
  public let connection: Connection
  let session: ObjectPath
  let cipher: SessionCipher

  public static let service: ObjectPath = "/org/freedesktop/secrets"
  public static let defaultCollection: ObjectPath = "/org/freedesktop/secrets/aliases/default"

  /// Connects to the bus at `address` (the session bus when nil) and opens a session: the
  /// Diffie-Hellman one when the provider has it, as libsecret does, plain otherwise.
  public static func connect(to address: String? = nil) async throws -> SecretServiceClient {
    let connection =
      if let address { try await Connection.connect(to: address) } else {
        try await Connection.sessionBus()
      }
    for algorithm in [SessionAlgorithm.dhIETF1024, .plain] {
      let negotiation = try SessionNegotiation.Client(algorithm)
      let opened: (DBusValue, ObjectPath)
      do {
        opened = try await connection.callSecretService(
          service, SecretService.ServiceMethods.openSession, algorithm.rawValue, negotiation.input)
      } catch {
        if error.name == .notSupported && algorithm != .plain { continue }
        throw error
      }
      return SecretServiceClient(
        connection: connection, session: opened.1,
        cipher: try negotiation.finish(output: opened.0))
    }
    throw DBusError(.notSupported, "the provider offers no session algorithm we know")
  }

  func call(
    _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ body: [DBusValue] = []
  ) async throws(DBusError) -> [DBusValue] {
    try await connection.callSecretService(path, interface, member, body)
  }

  /// Calls a declared method (`SecretService.ServiceMethods` and the others) on `path`.
  func call<each Input: DBusRepresentable, each Output: DBusRepresentable>(
    _ path: ObjectPath, _ method: Takes<repeat each Input>.Returns<repeat each Output>,
    _ arguments: repeat each Input
  ) async throws -> (repeat each Output) {
    try await connection.callSecretService(path, method, repeat each arguments)
  }

  /// Calls a declared method that returns nothing on `path`.
  func call<each Input: DBusRepresentable>(
    _ path: ObjectPath, _ method: Takes<repeat each Input>.ReturnsNothing,
    _ arguments: repeat each Input
  ) async throws {
    try await connection.callSecretService(path, method, repeat each arguments)
  }

  /// SearchItems: items having every attribute pair, unlocked and locked.
  public func search(_ attributes: [String: String]) async throws -> (
    unlocked: [ObjectPath], locked: [ObjectPath]
  ) {
    try await call(Self.service, SecretService.ServiceMethods.searchItems, attributes)
  }

  /// Every property of `interface` on `path`, in one GetAll, the values out of their variants.
  func properties(of path: ObjectPath, _ interface: InterfaceName) async throws
    -> [String: DBusValue]
  {
    let reply = try await call(path, .properties, "GetAll", [.string(interface.rawValue)])
    return try [String: DBusValue](dbusValue: reply.first ?? .array(.string, [])).mapValues {
      if case .variant(let inner) = $0 { inner } else { $0 }
    }
  }

  /// Label, attributes and dates of an item, in one GetAll.
  public func item(_ path: ObjectPath) async throws -> RemoteItem {
    typealias Item = SecretService.ItemProperty
    let properties = try await properties(of: path, SecretService.itemInterface)
    guard let label = try Item.label.value(in: properties),
      let attributes = try Item.attributes.value(in: properties)
    else { throw DBusError(.failed, "the item \(path) has no Label or Attributes") }
    func date(_ property: Property<UInt64>) -> Date {
      Date(timeIntervalSince1970: TimeInterval((try? property.value(in: properties)) ?? 0))
    }
    return RemoteItem(
      path: path, label: label, attributes: attributes, created: date(Item.created),
      modified: date(Item.modified))
  }

  /// Whether an item (or, with the collection interface, a collection) is locked.
  public func isLocked(_ path: ObjectPath, interface: InterfaceName = SecretService.itemInterface)
    async throws -> Bool
  {
    try await get(
      interface == SecretService.itemInterface
        ? SecretService.ItemProperty.locked : SecretService.CollectionProperty.locked, of: path)
  }

  /// Reads `property` of the object at `path`.
  public func get<Value>(_ property: Property<Value>, of path: ObjectPath) async throws -> Value {
    try await connection.getSecretServiceProperty(path, property)
  }

  /// The secret of an unlocked item, decrypted.
  public func secret(of path: ObjectPath) async throws -> SecureBytes {
    try await secretAndContentType(of: path).secret
  }

  /// The secret of an unlocked item, decrypted, and its content type.
  public func secretAndContentType(of path: ObjectPath) async throws
    -> (secret: SecureBytes, contentType: String)
  {
    let secret = try await call(path, SecretService.ItemMethods.getSecret, session)
    return (
      try cipher.decrypt(parameters: secret.parameters, value: secret.value), secret.contentType
    )
  }

  /// `secret` encrypted for this session.
  func secretValue(_ secret: SecureBytes, contentType: String) throws -> Secret {
    let (parameters, value) = try cipher.encrypt(secret)
    return Secret(session: session, parameters: parameters, value: value, contentType: contentType)
  }
}
