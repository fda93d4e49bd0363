// SPDX-License-Identifier: MIT
//
// Items the Keychain way: `SecItemAdd` refuses a duplicate primary key, searches honour
// `kSecMatchLimit` and `kSecMatchCaseInsensitive`, and each item is read through the Keychain
// view of its Secret Service attributes (see `SecretServiceMapping`).
//
// The rules themselves are KeychainCore's `ItemSource` operations; this file gives them the
// store's items. Searches use the attribute index for every exact attribute of the query;
// label, dates and case-insensitive matching are checked on the decrypted items it returns.

import Foundation
import KeychainCore
import KeychainCrypto

extension KeychainStore {
  /// The Keychain status for a failure of the store.
  public static func status(for error: any Error) -> KeychainStatus {
    switch error {
    case let status as KeychainStatus: status
    case let error as StoreError: error.status
    default: KeychainStatus(KeychainStatus.decode.code, detail: "\(error)")
    }
  }

  /// Runs `body`, reporting any failure as a Keychain status.
  static func keychainStatus<T>(_ body: () throws -> T) throws(KeychainStatus) -> T {
    do { return try body() } catch { throw status(for: error) }
  }

  /// The persistent reference of an item: its collection and number.
  static func persistentReference(_ item: ItemID) -> [UInt8] {
    Array("\(item.collection)/\(item.id)".utf8)
  }

  static func item(fromPersistentReference bytes: [UInt8]) -> ItemID? {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let slash = text.lastIndex(of: "/"), let id = Int64(text[text.index(after: slash)...])
    else { return nil }
    return ItemID(collection: String(text[..<slash]), id: id)
  }

  /// The Keychain view of an unlocked item; with `data`, its secret too.
  func found(_ item: ItemID, data: Bool) throws -> FoundItem {
    let (info, secret) = try record(item)
    let (itemClass, attributes) = SecretServiceMapping.keychainAttributes(
      raw: info.attributes, label: info.label, created: info.created, modified: info.modified)
    return FoundItem(
      itemClass: itemClass, attributes: attributes, data: data ? secret.copyBytes() : nil,
      persistentReference: Self.persistentReference(item))
  }

  /// The store's items as an `ItemSource`, new ones going into `collection`.
  public func items(in collection: String) -> StoreItems {
    StoreItems(store: self, collection: collection)
  }

  /// `SecItemCopyMatching`: the matches, at most as many as the query's limit.
  public func copyMatching(_ query: ItemQuery) throws(KeychainStatus) -> [FoundItem] {
    try Self.keychainStatus { try items(in: Self.loginCollection).copyMatching(query) }
  }

  /// `SecItemAdd` into `collection` (unlocked): `errSecDuplicateItem` if an unlocked item of
  /// the class has the same primary key.
  @discardableResult
  public func add(_ item: NewItem, to collection: String) throws(KeychainStatus) -> FoundItem {
    try Self.keychainStatus { try items(in: collection).add(item) }
  }

  /// `SecItemUpdate`: applies `changes` to every match.
  public func update(_ query: ItemQuery, _ changes: ItemChanges) throws(KeychainStatus) {
    try Self.keychainStatus { try items(in: Self.loginCollection).update(query, changes) }
  }

  /// `SecItemDelete`: deletes every match.
  public func delete(_ query: ItemQuery) throws(KeychainStatus) {
    try Self.keychainStatus { try items(in: Self.loginCollection).delete(query) }
  }
}

/// The store's items for the Keychain operations of `ItemSource`. The store cannot ask for a
/// password, so locked items stay locked (`errSecInteractionNotAllowed`).
public struct StoreItems: ItemSource, Sendable {
  let store: KeychainStore
  /// Where `SecItemAdd` puts new items.
  let collection: String

  public func search(_ pairs: [String: String]) throws -> (unlocked: [ItemID], locked: [ItemID]) {
    try store.searchItems(pairs)
  }

  public func item(persistentReference: [UInt8]) throws -> (ItemID, locked: Bool)? {
    guard let item = KeychainStore.item(fromPersistentReference: persistentReference),
      try store.exists(item)
    else { return nil }
    return (item, store.isLocked(item.collection))
  }

  public func view(_ item: ItemID, data: Bool) throws -> FoundItem {
    try store.found(item, data: data)
  }

  public func unlock(_ items: [ItemID]) throws -> [ItemID] { [] }

  public func create(label: String, attributes: [String: String], secret: [UInt8], data: Bool)
    throws -> FoundItem
  {
    _ = try store.dataKey(collection)
    let (id, _) = try store.createItem(
      in: collection, label: label, attributes: attributes, secret: SecureBytes(copying: secret),
      replace: false)
    return try store.found(id, data: data)
  }

  public func change(
    _ item: ItemID, attributes: (([String: String]) -> [String: String])?, label: String?,
    secret: [UInt8]?
  ) throws {
    // Attributes, label and data change together, in one transaction.
    try store.modify(item) { payload in
      if let attributes { payload.attributes = attributes(payload.attributes) }
      if let label { payload.label = label }
      if let secret { payload.secret = SecureBytes(copying: secret) }
    }
  }

  public func delete(_ item: ItemID) throws { try store.deleteItem(item) }
}
