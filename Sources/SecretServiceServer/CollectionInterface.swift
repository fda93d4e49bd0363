// SPDX-License-Identifier: MIT

import Foundation
import KeychainAccess
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

/// `org.freedesktop.Secret.Collection` for one collection, reached by its own path or an alias.
struct CollectionInterface: DBusInterface {
  let core: DaemonCore
  /// The store's name of the collection.
  let name: String

  typealias Methods = SecretService.CollectionMethods

  /// Each method's handler, from the declarations in SecretServiceProtocol.
  static let table = InterfaceTable<CollectionInterface>(SecretService.Interfaces.collection) {
    table in
    table.on(Methods.delete, delete)
    table.on(Methods.searchItems, searchItems)
    table.on(Methods.createItem, createItem)
    table.get(Properties.items, items)
    table.get(Properties.label, label)
    table.set(Properties.label, setLabel)
    table.get(Properties.locked, locked)
    table.get(Properties.created, created)
    table.get(Properties.modified, modified)
  }

  var path: ObjectPath { Resolver.path(ofCollection: name) }

  /// Deletes the collection; in `protect`, when other programs' items are in it, only once
  /// the user allows it in the prompt returned.
  func delete(_ request: MethodRequest) async throws -> ObjectPath {
    let view = StoreView(request, core: core)
    if let (question, deletion) = try view.deletionQuestion(for: name) {
      return try await core.prompts.make(
        owner: request.caller, action: .deleteCollection(name, question, deletion: deletion))
    }
    try await view.write { [name] in try $0.deleteCollection(name) }
    view.record(.collectionDeleted(name))
    return SecretPath.none
  }

  func searchItems(_ request: MethodRequest, attributes: [String: String]) async throws
    -> [ObjectPath]
  {
    let (readable, locked) = try StoreView(request, core: core).search(attributes, in: name)
    return Resolver.paths(of: readable + locked)
  }

  func createItem(
    _ request: MethodRequest, properties: [String: DBusValue], secret: Secret, replace: Bool
  ) async throws -> (ObjectPath, ObjectPath) {
    let view = StoreView(request, core: core)
    let asked = try NewItemProperties(properties)
    try view.requireUnlocked(collection: name, else: SecretServiceError.Locked.createItem)
    let label = asked.label
    var attributes = asked.storedAttributes
    let cipher = try core.sessions.cipher(secret.session, caller: request.caller, wrapping: true)
    let plaintext = try cipher.decrypt(parameters: secret.parameters, value: secret.value)
    let contentType = secret.contentType.isEmpty ? "text/plain" : secret.contentType
    let group = try view.takeAccessGroup(from: &attributes, in: name)
    // The caller's own group is the caller, pinned to its content; a named group has no pin.
    let creator = view.creator
    let named = group.flatMap { $0 == creator?.key ? nil : ItemOwner(key: $0) }
    let (owner, allowed) = (named ?? creator, view.mayReplace)
    let mayReplace: @Sendable (ItemID) -> Bool = { item in
      guard allowed(item) else {
        view.refusedReplace(of: item)
        return false
      }
      return true
    }
    // Through a share, an item outside it is not there: storing over it makes a new one.
    let scope = view.scope
    let hidden: @Sendable (ItemID) -> Bool = { item in scope.map { !$0.contains(item) } ?? false }
    let (item, replaced): (ItemID, Bool)
    do {
      (item, replaced) = try await view.write(using: [name]) { [name, label, attributes] in
        try $0.createItem(
          in: name, label: label, attributes: attributes, secret: plaintext,
          contentType: contentType, replace: replace, owner: owner, mayReplace: mayReplace,
          hidden: hidden)
      }
    } catch let error as StoreError {
      guard case .notAllowed = error else { throw error }
      throw view.replaceRefused(error)
    }
    view.record(replaced ? .itemReplaced(item) : .itemCreated(item))
    return (Resolver.path(of: item), SecretPath.none)
  }

  private typealias Properties = SecretService.CollectionProperty

  func items(_ request: MethodRequest) async throws -> [ObjectPath] {
    Resolver.paths(of: try StoreView(request, core: core).items(in: name))
  }

  func label(_ request: MethodRequest) async throws -> String { try info(request).label }

  func locked(_ request: MethodRequest) async throws -> Bool {
    _ = try info(request)  // a collection deleted meanwhile is an error, not "unlocked"
    return StoreView(request, core: core).isLocked(name)
  }

  func created(_ request: MethodRequest) async throws -> UInt64 {
    Self.seconds(try info(request).created)
  }

  func modified(_ request: MethodRequest) async throws -> UInt64 {
    Self.seconds(try info(request).modified)
  }

  private func info(_ request: MethodRequest) throws -> CollectionInfo {
    try StoreView(request, core: core).collection(name)
  }

  /// A date as the Secret Service's `t` properties carry it: seconds since 1970.
  static func seconds(_ date: Date?) -> UInt64 {
    UInt64(max(0, date?.timeIntervalSince1970 ?? 0))
  }

  func setLabel(_ request: MethodRequest, label: String) async throws {
    let view = StoreView(request, core: core)
    try view.requireUnlocked(collection: name, else: SecretServiceError.Locked.setProperty)
    try await view.write { [name] in try $0.setLabel(label, ofCollection: name) }
    view.record(.collectionChanged(name, properties: Properties.label.changed(label)))
  }
}

/// `org.freedesktop.Secret.Item` for one item.
struct ItemInterface: DBusInterface {
  let core: DaemonCore
  let item: ItemID

  typealias Methods = SecretService.ItemMethods

  /// Each method's handler, from the declarations in SecretServiceProtocol.
  static let table = InterfaceTable<ItemInterface>(SecretService.Interfaces.item) { table in
    table.on(Methods.delete, delete)
    table.on(Methods.getSecret, getSecret)
    table.on(Methods.setSecret, setSecret)
    table.get(Properties.locked, locked)
    table.get(Properties.attributes, attributes)
    table.set(Properties.attributes, setAttributes)
    table.get(Properties.label, label)
    table.set(Properties.label, setLabel)
    table.get(Properties.type, type)
    table.set(Properties.type, setType)
    table.get(Properties.created, created)
    table.get(Properties.modified, modified)
  }

  var path: ObjectPath { Resolver.path(of: item) }

  func delete(_ request: MethodRequest) async throws -> ObjectPath {
    let view = StoreView(request, core: core)
    try view.requireUnlocked(item, for: .delete, else: SecretServiceError.Locked.delete)
    let attributes = try view.info(item)?.attributes ?? [:]
    try await view.write { [item] in try $0.deleteItem(item) }
    view.record(.itemDeleted(item, attributes: attributes))
    return SecretPath.none
  }

  func getSecret(_ request: MethodRequest, session: ObjectPath) async throws -> Secret {
    let view = StoreView(request, core: core)
    let cipher = try core.sessions.cipher(session, caller: request.caller)
    await view.askBeforeReading([item])
    try view.requireUnlocked(item, for: .read, else: SecretServiceError.Locked.getSecret)
    let (secret, contentType) = try view.secret(of: item)
    let (parameters, value) = try cipher.encrypt(secret)
    return Secret(session: session, parameters: parameters, value: value, contentType: contentType)
  }

  func setSecret(_ request: MethodRequest, secret: Secret) async throws {
    let view = StoreView(request, core: core)
    let cipher = try core.sessions.cipher(secret.session, caller: request.caller, wrapping: true)
    try view.requireUnlocked(item, for: .write, else: SecretServiceError.Locked.setSecret)
    let plaintext = try cipher.decrypt(parameters: secret.parameters, value: secret.value)
    try await view.write(using: [item.collection]) { [item] in
      try $0.setSecret(plaintext, contentType: secret.contentType, of: item)
    }
    view.record(.itemChanged(item))
  }

  private typealias Properties = SecretService.ItemProperty

  func locked(_ request: MethodRequest) async throws -> Bool {
    StoreView(request, core: core).isLocked(item)
  }
  func attributes(_ request: MethodRequest) async throws -> [String: String] {
    try info(request)?.attributes ?? [:]
  }
  func label(_ request: MethodRequest) async throws -> String { try info(request)?.label ?? "" }
  func type(_ request: MethodRequest) async throws -> String {
    try info(request)?.attributes["xdg:schema"] ?? ""
  }
  func created(_ request: MethodRequest) async throws -> UInt64 {
    CollectionInterface.seconds(try info(request)?.created)
  }
  func modified(_ request: MethodRequest) async throws -> UInt64 {
    CollectionInterface.seconds(try info(request)?.modified)
  }

  private func info(_ request: MethodRequest) throws -> ItemInfo? {
    try StoreView(request, core: core).info(item)
  }

  /// One decryption answers every property: libsecret calls GetAll for each search hit.
  func allProperties(_ request: MethodRequest) async throws -> [String: DBusValue] {
    let view = StoreView(request, core: core)
    let locked = view.isLocked(item)
    let info = try view.info(item)
    return [
      Properties.locked.name: Properties.locked.wire(locked),
      Properties.attributes.name: Properties.attributes.wire(info?.attributes ?? [:]),
      Properties.label.name: Properties.label.wire(info?.label ?? ""),
      Properties.type.name: Properties.type.wire(info?.attributes["xdg:schema"] ?? ""),
      Properties.created.name: Properties.created.wire(CollectionInterface.seconds(info?.created)),
      Properties.modified.name: Properties.modified.wire(
        CollectionInterface.seconds(info?.modified)),
    ]
  }

  // Only the property that was set is announced, as gnome-keyring does (Type: none at all).

  func setLabel(_ request: MethodRequest, label: String) async throws {
    try await change(request, Properties.label.changed(label)) { [item] store in
      try store.setLabel(label, ofItem: item)
    }
  }

  func setAttributes(_ request: MethodRequest, attributes: [String: String]) async throws {
    try await change(request, Properties.attributes.changed(attributes)) { [item] store in
      try store.setAttributes(attributes, of: item)
    }
  }

  func setType(_ request: MethodRequest, type: String) async throws {
    try await change(request, [:]) { [item] store in
      var attributes = try store.itemInfo(item).attributes
      attributes["xdg:schema"] = type
      try store.setAttributes(attributes, of: item)
    }
  }

  /// Makes a change to an item the caller has unlocked, then announces `changed`.
  private func change(
    _ request: MethodRequest, _ changed: [String: DBusValue],
    _ write: @escaping @Sendable (KeychainStore) throws -> Void
  ) async throws {
    let view = StoreView(request, core: core)
    try view.requireUnlocked(item, for: .write, else: SecretServiceError.Locked.setProperty)
    try await view.write(write)
    view.record(.itemChanged(item, properties: changed))
  }
}
