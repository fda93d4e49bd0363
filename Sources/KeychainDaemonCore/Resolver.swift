// SPDX-License-Identifier: MIT
//
// Between object paths and store names, and between store errors and D-Bus error names.

import KeychainDBus
import KeychainStore
import SecretServiceProtocol

package enum Resolver {
  /// The store collection a collection or alias path names, or nil. Under a share's `scope`,
  /// only the collections it shows exist, and aliases lead where the share says.
  package static func collection(
    _ path: SecretPath, in store: KeychainStore, scope: ShareScope? = nil
  ) throws -> String? {
    switch path {
    case .collection(let name):
      guard scope?.shows(collection: name) ?? true else { return nil }
      return try store.hasCollection(name) ? name : nil
    case .alias(let alias):
      if let scope { return try scope.alias(alias, in: store) }
      return try store.alias(alias)
    default:
      return nil
    }
  }

  /// The item an item path names, if it exists (and, under `scope`, is shared).
  package static func item(_ path: SecretPath, in store: KeychainStore, scope: ShareScope? = nil)
    throws
    -> ItemID?
  {
    guard let resolved = try itemID(path, in: store, scope: scope), try store.exists(resolved)
    else { return nil }
    return resolved
  }

  /// The item an item path would name, whether or not it exists: for callers that read it
  /// at once and treat "no such item" as the read's answer (GetSecrets). Under `scope`, nil
  /// for an item the share does not hold.
  static func itemID(_ path: SecretPath, in store: KeychainStore, scope: ShareScope? = nil)
    throws -> ItemID?
  {
    let item: ItemID?
    switch path {
    case .item(let collection, let element):
      item = Int64(element).map { ItemID(collection: collection, id: $0) }
    case .aliasItem(let alias, let element):
      item = try collection(.alias(alias), in: store, scope: scope).flatMap { c in
        Int64(element).map { ItemID(collection: c, id: $0) }
      }
    default:
      item = nil
    }
    guard let item, let scope else { return item }
    return scope.contains(item) ? item : nil
  }

  /// The collection an object path leads to: a collection, an alias, or any item path under
  /// one (an item that does not exist included, as gnome-keyring counts it for Lock and Unlock;
  /// under `scope`, only a shared item).
  package static func owningCollection(
    _ path: ObjectPath, in store: KeychainStore, scope: ShareScope? = nil
  ) throws -> String? {
    guard let parsed = SecretPath(path) else { return nil }
    switch parsed {
    case .item(let collection, _):
      if scope != nil, try itemID(parsed, in: store, scope: scope) == nil { return nil }
      return try self.collection(.collection(collection), in: store, scope: scope)
    case .aliasItem(let alias, _):
      if scope != nil, try itemID(parsed, in: store, scope: scope) == nil { return nil }
      return try self.collection(.alias(alias), in: store, scope: scope)
    default: return try collection(parsed, in: store, scope: scope)
    }
  }

  /// The collection a path argument names for SetAlias and the master-password methods: a
  /// collection or alias path, or an item's (its collection), as gnome-keyring takes them.
  static func namedCollection(
    _ path: ObjectPath, in store: KeychainStore, scope: ShareScope? = nil
  ) throws(DBusError) -> String {
    switch SecretPath(path) {
    case .collection(let name)?, .item(let name, _)?:
      guard (try? collection(.collection(name), in: store, scope: scope)) == name else {
        throw SecretServiceError.noSuchCollection
      }
      return name
    case .alias(let alias)?, .aliasItem(let alias, _)?:
      guard let name = try? collection(.alias(alias), in: store, scope: scope) else {
        throw SecretServiceError.noSuchCollection
      }
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
  package static func paths(of items: [ItemID]) -> [ObjectPath] {
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
