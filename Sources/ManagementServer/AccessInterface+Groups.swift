// SPDX-License-Identifier: MIT
//
// Named access groups (`keychainctl access group`), as on Apple's keychain: items stored in
// `group:NAME` belong to the group rather than to one program, and every member uses them
// without being asked. A membership is a grant of the collection it was made in, sealed with
// that collection's key like every grant, so it needs the collection's password to make and
// none to end.

import KeychainAccess
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

extension AccessInterface {
  func groupAdd(
    _ request: MethodRequest, app: String, group: String, collections: [ObjectPath],
    password: Secret
  ) async throws -> UInt32 {
    let view = StoreView(request, core: core)
    let group = try Self.groupKey(group)
    let secret = try core.sessions.password(in: password, caller: request.caller)
    let (key, pin) = try core.access.applicationKey(app)
    var names = try collections.map { try view.namedCollection($0) }
    if names.isEmpty {
      guard let preferred = try view.alias("default") else {
        throw SecretServiceError.noSuchCollection
      }
      names = [preferred]
    }
    try await checkPassword(secret, for: Set(names), view)
    for name in Set(names).sorted() {
      let membership = AccessGrant(
        app: key, pin: pin, collection: name, item: nil, group: group, source: "cli")
      _ = try await view.write { try $0.addGrant(membership) }
      view.note(.grant, .allowed, Resolver.path(ofCollection: name))
    }
    core.logger.notice("access: \(key) added to \(group) by keychainctl")
    return UInt32(Set(names).count)
  }

  func groupRemove(
    _ request: MethodRequest, app: String, group: String, collections: [ObjectPath]
  ) async throws -> UInt32 {
    let view = StoreView(request, core: core)
    let group = try Self.groupKey(group)
    let (key, _) = try core.access.applicationKey(app)
    let names =
      collections.isEmpty
      ? try view.collections().map(\.name).filter {
        $0 != KeychainStore.sessionCollection && !view.isLocked($0)
      }
      : try collections.map { try view.namedCollection($0) }
    var removed = 0
    for name in Set(names).sorted() {
      guard !view.isLocked(name) else {
        throw DBusError(
          .isLocked, "the collection \(name) is locked: unlock it to change its groups")
      }
      let ids = try view.metadata { try $0.grants(in: name) }
        .filter { $0.app == key && $0.group == group }.map(\.id)
      guard !ids.isEmpty else { continue }
      removed += try await view.write { try $0.removeGrants(ids, in: name) }
      view.note(.revoke, .allowed, Resolver.path(ofCollection: name))
    }
    core.logger.notice("access: \(key) left \(group) in \(removed) collection(s)")
    return UInt32(removed)
  }

  func groupOf(_ request: MethodRequest, item path: ObjectPath) async throws -> String {
    let view = StoreView(request, core: core)
    guard let parsed = SecretPath(path), let item = try view.itemID(at: parsed),
      try view.metadata({ try $0.exists(item) })
    else { throw DBusError(.noSuchObject, "No such item") }
    guard !view.isLocked(item) else {
      throw DBusError(.isLocked, "the item is locked for this program")
    }
    return try view.metadata { try $0.owner(of: item) }?.key ?? ""
  }

  /// `group:NAME` for a group's name, or InvalidArgs.
  static func groupKey(_ name: String) throws(DBusError) -> String {
    guard let key = AccessGrant.groupKey(name) else {
      throw DBusError(
        .invalidArgs, "a group's name is 1 to 64 letters, digits, '.', '_' or '-'")
    }
    return key
  }
}
