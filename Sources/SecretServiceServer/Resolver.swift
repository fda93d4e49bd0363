// SPDX-License-Identifier: MIT
//
// Between object paths and store names, and between store errors and D-Bus error names.

import KeychainDBus
import KeychainStore
import SecretServiceProtocol

package enum Resolver {
  /// The store collection a collection or alias path names, or nil.
  static func collection(_ path: SecretPath, in store: KeychainStore) throws -> String? {
    switch path {
    case .collection(let name):
      return try store.hasCollection(name) ? name : nil
    case .alias(let alias):
      return try store.alias(alias)
    default:
      return nil
    }
  }

  /// The item an item path names, if it exists.
  static func item(_ path: SecretPath, in store: KeychainStore) throws -> ItemID? {
    guard let resolved = try itemID(path, in: store), try store.exists(resolved) else {
      return nil
    }
    return resolved
  }

  /// The item an item path would name, whether or not it exists: for callers that read it
  /// at once and treat "no such item" as the read's answer (GetSecrets).
  static func itemID(_ path: SecretPath, in store: KeychainStore) throws -> ItemID? {
    switch path {
    case .item(let collection, let element):
      Int64(element).map { ItemID(collection: collection, id: $0) }
    case .aliasItem(let alias, let element):
      try store.alias(alias).flatMap { c in Int64(element).map { ItemID(collection: c, id: $0) } }
    default:
      nil
    }
  }

  /// The collection an object path leads to: a collection, an alias, or any item path under
  /// one (an item that does not exist included, as gnome-keyring counts it for Lock and Unlock).
  static func owningCollection(_ path: ObjectPath, in store: KeychainStore) throws -> String? {
    switch SecretPath(path) {
    case .item(let collection, _)?: return try self.collection(.collection(collection), in: store)
    case .aliasItem(let alias, _)?: return try self.collection(.alias(alias), in: store)
    case let parsed?: return try collection(parsed, in: store)
    case nil: return nil
    }
  }

  /// The collection a path argument names for SetAlias and the master-password methods: a
  /// collection or alias path, or an item's (its collection), as gnome-keyring takes them.
  static func namedCollection(_ path: ObjectPath, in store: KeychainStore) throws(DBusError)
    -> String
  {
    switch SecretPath(path) {
    case .collection(let name)?, .item(let name, _)?:
      guard (try? store.hasCollection(name)) == true else {
        throw SecretServiceError.noSuchCollection
      }
      return name
    case .alias(let alias)?, .aliasItem(let alias, _)?:
      guard let name = try? store.alias(alias) else { throw SecretServiceError.noSuchCollection }
      return name
    default:
      throw SecretServiceError.invalidCollectionPath
    }
  }

  package static func path(of item: ItemID) -> ObjectPath {
    SecretPath.item(collection: item.collection, item: String(item.id)).objectPath
  }

  /// The paths of `items`; those of one collection are built from one prefix (the `Items` of
  /// a collection of 100k items is a list this long).
  static func paths(of items: [ItemID]) -> [ObjectPath] {
    guard let first = items.first, items.allSatisfy({ $0.collection == first.collection }) else {
      return items.map { path(of: $0) }
    }
    return SecretPath.items(of: first.collection, items.map { $0.id })
  }

  package static func path(ofCollection name: String) -> ObjectPath {
    SecretPath.collection(name).objectPath
  }
}

extension DBusValue {
  /// The content of an `a{sv}` property named `name`, checked to have `type`.
  static func property(_ properties: [String: DBusValue], _ name: String, _ type: DBusType)
    throws(DBusError)
    -> DBusValue?
  {
    guard let value = properties[name] else { return nil }
    guard value.type == type else {
      throw DBusError(.invalidArgs, "property \(name) must have type \(type), got \(value.type)")
    }
    return value
  }
}

/// Store failures as the error names clients act on (gnome-keyring's, which libsecret tests for), rendered by the
/// object server at its boundary: handlers let them go up as they are.
extension StoreError: DBusErrorConvertible {
  public var dbusError: DBusError {
    switch self {
    case .locked: DBusError(.isLocked, description)
    case .noSuchCollection, .noSuchItem: DBusError(.noSuchObject, description)
    case .limitExceeded: DBusError(.limitsExceeded, description)
    case .invalid, .collectionExists: DBusError(.invalidArgs, description)
    case .wrongPassword: SecretServiceError.wrongPassword
    case .wrongRecoveryKey: DBusError(.accessDenied, description)
    case .noSpace: DBusError(.ioError, description)
    case .notAllowed: DBusError(.accessDenied, description)
    case .newerSchema, .unsafePermissions, .corrupt, .damaged: DBusError(.failed, description)
    }
  }
}
