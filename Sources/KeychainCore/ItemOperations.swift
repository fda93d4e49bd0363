// SPDX-License-Identifier: MIT
//
// The SecItem semantics, once, over any place that holds Secret Service items: the encrypted
// store (embedded in a program, or inside keychaind) and a Secret Service provider on the bus.
// A source only searches by exact attribute pairs, reads, creates, changes and deletes; the
// Keychain rules (primary keys and `errSecDuplicateItem`, match limits, label, dates and
// case-insensitive filtering, the locked-item outcomes) live here.

/// Items as a store or a provider keeps them: Secret Service attributes, label, secret.
public protocol ItemSource {
  /// How the source names an item (a row id, an object path).
  associatedtype ItemID: Hashable

  /// Items whose attributes include every pair, split into unlocked and locked ones.
  func search(_ pairs: [String: String]) throws -> (unlocked: [ItemID], locked: [ItemID])
  /// The item a persistent reference names, and whether it is locked; nil if there is none.
  func item(persistentReference: [UInt8]) throws -> (ItemID, locked: Bool)?
  /// The Keychain view of an unlocked item, with its data when `data` is true.
  func view(_ item: ItemID, data: Bool) throws -> FoundItem
  /// Unlocks `items` (asking the user if the source can); returns those now unlocked.
  func unlock(_ items: [ItemID]) throws -> [ItemID]
  /// Stores a new item in the default collection; returns the Keychain view of it.
  func create(label: String, attributes: [String: String], secret: [UInt8], data: Bool) throws
    -> FoundItem
  /// Changes one item: the raw attributes, the label and the secret, each when given.
  func change(
    _ item: ItemID, attributes: (([String: String]) -> [String: String])?, label: String?,
    secret: [UInt8]?
  ) throws
  func delete(_ item: ItemID) throws
}

extension ItemSource {
  /// Matches of `query`, at most `limit`; `errSecItemNotFound` when there are none, or
  /// `errSecInteractionNotAllowed` when only locked items could match and the query neither
  /// allows asking nor skips them.
  public func matches(_ query: ItemQuery, data: Bool, limit: Int?) throws -> [(
    ItemID, FoundItem
  )] {
    var candidates: [ItemID]
    var locked: [ItemID]
    if let reference = query.persistentReference {
      guard let (item, isLocked) = try item(persistentReference: reference) else {
        throw KeychainStatus.itemNotFound
      }
      (candidates, locked) = isLocked ? ([], [item]) : ([item], [])
    } else {
      (candidates, locked) = try search(SecretServiceMapping.searchPairs(for: query))
    }
    switch query.authenticationUI {
    case .allow where !locked.isEmpty:
      let opened = try unlock(locked)
      candidates += opened
      locked.removeAll { opened.contains($0) }
    case .skip: locked = []
    default: break
    }
    var results: [(ItemID, FoundItem)] = []
    for item in candidates {
      if let limit, results.count >= limit { break }
      let view = try view(item, data: data)
      guard view.itemClass == query.itemClass, query.matches(view.attributes) else { continue }
      results.append((item, view))
    }
    guard !results.isEmpty else {
      throw locked.isEmpty ? KeychainStatus.itemNotFound : KeychainStatus.interactionNotAllowed
    }
    return results
  }

  /// `SecItemCopyMatching`: the matches, at most as many as the query's limit.
  public func copyMatching(_ query: ItemQuery) throws -> [FoundItem] {
    try matches(
      query, data: !query.returns.isDisjoint(with: [.data, .reference]),
      limit: query.matchLimit.maximum
    ).map(\.1)
  }

  /// Whether an unlocked item other than `excluded` has the primary key of `attributes`.
  private func hasDuplicate(
    of itemClass: ItemClass, _ attributes: [AttributeKey: AttributeValue],
    excluding excluded: Set<ItemID>
  ) throws -> Bool {
    let key = attributes.filter { itemClass.primaryKey.contains($0.key) }
    var query = ItemQuery(itemClass: itemClass)
    query.attributes = key
    for candidate in try search(SecretServiceMapping.searchPairs(for: query)).unlocked
    where !excluded.contains(candidate) {
      let view = try view(candidate, data: false)
      // Same class, and every primary-key attribute equal, absent ones included; an item added
      // with no access group goes to the program's own, which the source reports for the items
      // it reads: the group counts only when the new item names one.
      let compared = view.attributes.filter {
        itemClass.primaryKey.contains($0.key)
          && ($0.key != .accessGroup || key[.accessGroup] != nil)
      }
      if view.itemClass == itemClass, compared == key {
        return true
      }
    }
    return false
  }

  /// `SecItemAdd`: `errSecDuplicateItem` if an unlocked item of the class has the same primary
  /// key; otherwise the new item, as the add query's return keys want it.
  @discardableResult
  public func add(_ item: NewItem) throws -> FoundItem {
    guard try !hasDuplicate(of: item.itemClass, item.attributes, excluding: []) else {
      throw KeychainStatus.duplicateItem
    }
    let (raw, label) = SecretServiceMapping.secretServiceAttributes(
      itemClass: item.itemClass, attributes: item.attributes)
    return try create(
      label: label, attributes: raw, secret: item.data,
      data: !item.returns.isDisjoint(with: [.data, .reference]))
  }

  /// `SecItemUpdate`: applies `changes` to every match. A change that would give two items the
  /// same primary key fails with `errSecDuplicateItem` before anything is written.
  public func update(_ query: ItemQuery, _ changes: ItemChanges) throws {
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
    for (id, view) in targets {
      let label: String? = if case .string(let text)? = newLabel { text } else { nil }
      try change(
        id,
        attributes: attributeChanges.isEmpty
          ? nil
          : { raw in
            SecretServiceMapping.applying(attributeChanges, itemClass: view.itemClass, to: raw)
          },
        label: label, secret: changes.data)
    }
  }

  /// `SecItemDelete`: deletes every match.
  public func delete(_ query: ItemQuery) throws {
    for (id, _) in try matches(query, data: false, limit: nil) { try delete(id) }
  }
}
