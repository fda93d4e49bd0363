// SPDX-License-Identifier: MIT
//
// Items the Keychain way: `SecItemAdd` refuses a duplicate primary key, searches honour
// `kSecMatchLimit` and `kSecMatchCaseInsensitive`, and each item is read through the Keychain
// view of its Secret Service attributes (see `SecretServiceMapping`).
//
// Searches use the attribute index for every exact attribute of the query; label, dates and
// case-insensitive matching are checked on the decrypted items the index returns.

import Foundation
import KeychainCore
import KeychainCrypto

extension KeychainStore {
  /// Runs `body`, reporting any failure as a Keychain status.
  func keychainStatus<T>(_ body: () throws -> T) throws(KeychainStatus) -> T {
    do {
      return try body()
    } catch let status as KeychainStatus {
      throw status
    } catch let error as StoreError {
      throw error.status
    } catch {
      throw KeychainStatus(KeychainStatus.decode.code, detail: "\(error)")
    }
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

  /// Matches of `query` among unlocked items, with their ids; throws `errSecItemNotFound` when
  /// there are none, or `errSecInteractionNotAllowed` when only locked items could match.
  private func matches(_ query: ItemQuery, data: Bool, limit: Int?) throws -> [(ItemID, FoundItem)]
  {
    var candidates: [ItemID]
    var locked: [ItemID] = []
    if let reference = query.persistentReference {
      guard let item = Self.item(fromPersistentReference: reference), try exists(item) else {
        throw KeychainStatus.itemNotFound
      }
      if isLocked(item.collection) {
        locked = [item]
        candidates = []
      } else {
        candidates = [item]
      }
    } else {
      (candidates, locked) = try searchItems(SecretServiceMapping.searchPairs(for: query))
    }
    var results: [(ItemID, FoundItem)] = []
    for item in candidates {
      if let limit, results.count >= limit { break }
      let view = try found(item, data: data)
      guard view.itemClass == query.itemClass, query.matches(view.attributes) else { continue }
      results.append((item, view))
    }
    guard !results.isEmpty else {
      throw locked.isEmpty ? KeychainStatus.itemNotFound : KeychainStatus.interactionNotAllowed
    }
    return results
  }

  /// `SecItemCopyMatching`: the matches, at most as many as the query's limit.
  public func copyMatching(_ query: ItemQuery) throws(KeychainStatus) -> [FoundItem] {
    try keychainStatus {
      try matches(
        query, data: query.returns.contains(.data) || query.returns.contains(.reference),
        limit: query.matchLimit.maximum
      ).map(\.1)
    }
  }

  /// Whether an unlocked item other than `excluded` has the primary key of `attributes`.
  private func hasDuplicate(
    of itemClass: ItemClass, _ attributes: [AttributeKey: AttributeValue],
    excluding excluded: Set<ItemID>
  ) throws -> Bool {
    let key = attributes.filter { itemClass.primaryKey.contains($0.key) }
    var query = ItemQuery(itemClass: itemClass)
    query.attributes = key
    let (candidates, _) = try searchItems(SecretServiceMapping.searchPairs(for: query))
    for candidate in candidates where !excluded.contains(candidate) {
      let view = try found(candidate, data: false)
      // Same class, and every primary-key attribute equal, absent ones included.
      if view.itemClass == itemClass,
        view.attributes.filter({ itemClass.primaryKey.contains($0.key) }) == key
      {
        return true
      }
    }
    return false
  }

  /// `SecItemAdd` into `collection` (unlocked): `errSecDuplicateItem` if an unlocked item of
  /// the class has the same primary key.
  @discardableResult
  public func add(_ item: NewItem, to collection: String) throws(KeychainStatus) -> FoundItem {
    try keychainStatus {
      _ = try dataKey(collection)
      guard try !hasDuplicate(of: item.itemClass, item.attributes, excluding: []) else {
        throw KeychainStatus.duplicateItem
      }
      let (raw, label) = SecretServiceMapping.secretServiceAttributes(
        itemClass: item.itemClass, attributes: item.attributes)
      let secret = SecureBytes(copying: item.data)
      let (id, _) = try createItem(
        in: collection, label: label, attributes: raw, secret: secret, replace: false)
      return try found(id, data: !item.returns.isDisjoint(with: [.data, .reference]))
    }
  }

  /// `SecItemUpdate`: applies `changes` to every match. A change that would give two items the
  /// same primary key fails with `errSecDuplicateItem` before anything is written.
  public func update(_ query: ItemQuery, _ changes: ItemChanges) throws(KeychainStatus) {
    try keychainStatus {
      let targets = try matches(query, data: false, limit: nil)
      let ids = Set(targets.map(\.0))
      var attributeChanges = changes.attributes
      let newLabel = attributeChanges.removeValue(forKey: .label)
      if !attributeChanges.isEmpty {
        var seen: Set<[AttributeKey: AttributeValue]> = []
        for (_, view) in targets {
          let updated = view.attributes.merging(attributeChanges) { $1 }
          let key = updated.filter { view.itemClass.primaryKey.contains($0.key) }
          guard seen.insert(key).inserted,
            try !hasDuplicate(of: view.itemClass, updated, excluding: ids)
          else {
            throw KeychainStatus.duplicateItem
          }
        }
      }
      // Each item changes in one transaction: attributes, label and data together.
      for (id, view) in targets {
        try modify(id) { payload in
          if !attributeChanges.isEmpty {
            payload.attributes = SecretServiceMapping.applying(
              attributeChanges, itemClass: view.itemClass, to: payload.attributes)
          }
          if case .string(let label)? = newLabel { payload.label = label }
          if let data = changes.data { payload.secret = SecureBytes(copying: data) }
        }
      }
    }
  }

  /// `SecItemDelete`: deletes every match.
  public func delete(_ query: ItemQuery) throws(KeychainStatus) {
    try keychainStatus {
      for (id, _) in try matches(query, data: false, limit: nil) { try deleteItem(id) }
    }
  }
}
