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
      do {
        let reply = try await connection.callSecretService(
          service, SecretService.serviceInterface, "OpenSession",
          [.string(algorithm.rawValue), .variant(negotiation.input)])
        guard reply.count == 2, case .variant(let output) = reply[0], let path = reply[1].objectPath
        else { throw DBusError(.failed, "OpenSession answered \(reply.count) values") }
        return SecretServiceClient(
          connection: connection, session: path, cipher: try negotiation.finish(output: output))
      } catch let error as DBusError where error.name == .notSupported && algorithm != .plain {
        continue
      }
    }
    throw DBusError(.notSupported, "the provider offers no session algorithm we know")
  }

  func call(
    _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ body: [DBusValue] = []
  ) async throws(DBusError) -> [DBusValue] {
    try await connection.callSecretService(path, interface, member, body)
  }

  /// SearchItems: items having every attribute pair, unlocked and locked.
  public func search(_ attributes: [String: String]) async throws -> (
    unlocked: [ObjectPath], locked: [ObjectPath]
  ) {
    let reply = try await call(
      Self.service, SecretService.serviceInterface, "SearchItems", [attributes.dbusValue])
    guard reply.count == 2 else { throw DBusError(.failed, "SearchItems answered oddly") }
    return (try [ObjectPath](dbusValue: reply[0]), try [ObjectPath](dbusValue: reply[1]))
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
    let properties = try await properties(of: path, SecretService.itemInterface)
    func value(_ name: String) -> DBusValue? { properties[name] }
    guard let label = value("Label")?.string, let attributes = value("Attributes") else {
      throw DBusError(.failed, "the item \(path) has no Label or Attributes")
    }
    func date(_ name: String) -> Date {
      guard case .uint64(let seconds)? = value(name) else { return Date(timeIntervalSince1970: 0) }
      return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
    return RemoteItem(
      path: path, label: label, attributes: try [String: String](dbusValue: attributes),
      created: date("Created"), modified: date("Modified"))
  }

  /// Whether an item (or, with the collection interface, a collection) is locked.
  public func isLocked(_ path: ObjectPath, interface: InterfaceName = SecretService.itemInterface)
    async throws -> Bool
  {
    let reply = try await call(
      path, .properties, "Get", [.string(interface.rawValue), .string("Locked")])
    guard case .variant(.boolean(let locked))? = reply.first else {
      throw DBusError(.failed, "Locked is not a boolean")
    }
    return locked
  }

  /// The secret of an unlocked item, decrypted.
  public func secret(of path: ObjectPath) async throws -> SecureBytes {
    try await secretAndContentType(of: path).secret
  }

  /// The secret of an unlocked item, decrypted, and its content type.
  public func secretAndContentType(of path: ObjectPath) async throws
    -> (secret: SecureBytes, contentType: String)
  {
    let reply = try await call(
      path, SecretService.itemInterface, "GetSecret", [.objectPath(session)])
    let secret = try Secret(dbusValue: reply.first ?? .string(""))
    return (
      try cipher.decrypt(parameters: secret.parameters, value: secret.value), secret.contentType
    )
  }

  func wrap(_ secret: SecureBytes, contentType: String) throws -> DBusValue {
    let (parameters, value) = try cipher.encrypt(secret)
    return Secret(session: session, parameters: parameters, value: value, contentType: contentType)
      .dbusValue
  }
}
