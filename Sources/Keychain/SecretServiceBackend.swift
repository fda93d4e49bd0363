// SPDX-License-Identifier: MIT
//
// The bus backend: items live with whichever provider owns `org.freedesktop.secrets`. Each
// Keychain item is a Secret Service item whose attributes follow `SecretServiceMapping`, so
// an item stored here is found by `secret-tool` and libsecret apps, and theirs are found here.

import Foundation
import KeychainCore
import KeychainCrypto
import KeychainDBus
import SecretServiceClient
import SecretServiceProtocol

/// A provider's items as an `ItemSource`: object paths, each call a blocking D-Bus round trip
/// on the client thread.
///
/// Access groups as on Apple platforms, when the provider is keychaind: a program's own group
/// is its identity (what `keychainctl access whoami` shows), and every item it creates goes
/// there unless it names a group (`group:NAME`) the user made it a member of (`keychainctl
/// access group add`). keychaind decides: it keeps the group as the item's owner, finds only
/// that group's items when a query names one, and answers a group this program is not in with
/// NotInAccessGroup, which is `errSecMissingEntitlement` here. Items keychaind shows as locked
/// to this program alone (another program's, in `access-control = protect`) are left out of
/// every result, so they answer `errSecItemNotFound`. On another provider
/// `kSecAttrAccessGroup` stays an ordinary attribute.
struct BusItems: ItemSource {
  let client: SecretServiceClient
  /// Whether the provider has access groups at all (it is keychaind).
  let hasAccessGroups: Bool

  init(client: SecretServiceClient) {
    self.client = client
    hasAccessGroups = (try? ClientThread.blocking { try await client.accessIdentity() }) != nil
  }

  /// The provider on the bus at `address` (the session bus when nil).
  static func connect(address: String?) throws(KeychainStatus) -> BusItems {
    do {
      let client = try ClientThread.blocking { try await SecretServiceClient.connect(to: address) }
      return BusItems(client: client)
    } catch {
      throw KeychainStatus(KeychainStatus.notAvailable.code, detail: "\(status(error))")
    }
  }

  /// The session bus's provider if one owns or can start the name; nil otherwise. One
  /// connection does both: with no owner and nothing to activate, the bus answers OpenSession
  /// with ServiceUnknown at once.
  static func ifReachable() -> BusItems? {
    guard let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"],
      !address.isEmpty
    else { return nil }
    return try? connect(address: address)
  }

  /// The Keychain status for a failure of the bus or the provider.
  static func status(_ error: any Error) -> KeychainStatus {
    switch error {
    case let status as KeychainStatus: return status
    case is PromptDismissed: return .userCanceled
    case let error as DBusError:
      if error.name.meansNoSuchObject { return .itemNotFound }
      switch error.name {
      case ErrorName.isLocked: return .interactionNotAllowed
      case .notInAccessGroup:
        return KeychainStatus(KeychainStatus.missingEntitlement.code, detail: error.message)
      case .serviceUnknown, .nameHasNoOwner, .disconnected, .noReply, .timeout:
        return KeychainStatus(KeychainStatus.notAvailable.code, detail: error.name.rawValue)
      case .accessDenied: return .authFailed
      case .invalidArgs, .limitsExceeded:
        return KeychainStatus(KeychainStatus.param.code, detail: error.name.rawValue)
      default:
        return KeychainStatus(KeychainStatus.internalComponent.code, detail: error.name.rawValue)
      }
    default:
      return KeychainStatus(KeychainStatus.internalComponent.code, detail: "\(type(of: error))")
    }
  }

  private func run<T: Sendable>(_ body: @escaping @Sendable (SecretServiceClient) async throws -> T)
    throws -> T
  {
    let client = client
    return try ClientThread.blocking { try await body(client) }
  }

  func search(_ pairs: [String: String]) throws -> (unlocked: [ObjectPath], locked: [ObjectPath]) {
    let hasAccessGroups = hasAccessGroups
    return try run { client in
      var (unlocked, locked) = try await client.search(pairs)
      if hasAccessGroups, !locked.isEmpty {
        // An item locked while its collection is not is locked for this program alone: it is
        // not this program's to see.
        var collectionLocked: [ObjectPath: Bool] = [:]
        var kept: [ObjectPath] = []
        for item in locked {
          let collection = ObjectPath(
            unchecked: String(
              item.rawValue[..<(item.rawValue.lastIndex(of: "/") ?? item.rawValue.endIndex)]))
          if collectionLocked[collection] == nil {
            collectionLocked[collection] =
              (try? await client.isLocked(collection, interface: SecretService.collectionInterface))
              ?? true
          }
          if collectionLocked[collection] == true { kept.append(item) }
        }
        locked = kept
      }
      return (unlocked, locked)
    }
  }

  /// A persistent reference is the item's object path.
  func item(persistentReference: [UInt8]) throws -> (ObjectPath, locked: Bool)? {
    guard let path = ObjectPath(validating: String(decoding: persistentReference, as: UTF8.self))
    else {
      return nil
    }
    return try run { client -> (ObjectPath, locked: Bool)? in
      do {
        let locked = try await client.isLocked(path)
        return (path, locked)
      } catch let error as DBusError
        where error.name.meansNoSuchObject
      {
        return nil
      }
    }
  }

  func view(_ item: ObjectPath, data: Bool) throws -> FoundItem {
    let hasAccessGroups = hasAccessGroups
    let (remote, secret, group) = try run { client in
      (
        try await client.item(item), data ? try await client.secret(of: item).copyBytes() : nil,
        hasAccessGroups ? try await client.accessGroup(of: item) : nil
      )
    }
    var (itemClass, attributes) = SecretServiceMapping.keychainAttributes(
      raw: remote.attributes, label: remote.label, created: remote.created,
      modified: remote.modified)
    if let group { attributes[.accessGroup] = .string(group) }
    return FoundItem(
      itemClass: itemClass, attributes: attributes, data: secret,
      persistentReference: Array(item.rawValue.utf8))
  }

  func unlock(_ items: [ObjectPath]) throws -> [ObjectPath] {
    try run { try await $0.unlock(items) }
  }

  func create(label: String, attributes: [String: String], secret: [UInt8], data: Bool) throws
    -> FoundItem
  {
    let path = try run { client in
      try await client.createItem(
        label: label, attributes: attributes, secret: SecureBytes(copying: secret))
    }
    return try view(path, data: data)
  }

  func change(
    _ item: ObjectPath, attributes: (([String: String]) -> [String: String])?, label: String?,
    secret: [UInt8]?
  ) throws {
    let updated = try attributes.map { change in
      change(try run { try await $0.item(item) }.attributes)
    }
    try run { client in
      if let updated {
        try await client.set(SecretService.ItemProperty.attributes, of: item, to: updated)
      }
      if let label { try await client.set(SecretService.ItemProperty.label, of: item, to: label) }
      if let secret { try await client.setSecret(SecureBytes(copying: secret), of: item) }
    }
  }

  func delete(_ item: ObjectPath) throws {
    try run { try await $0.delete(item) }
  }
}
