// SPDX-License-Identifier: MIT
//
// Items the Secret Service way: duplicates allowed, replace on an identical attribute set,
// secrets read and written with their content type. Every statement here is GRDB's cached
// one, prepared once per connection: compiling the SQL on each write (`execute(sql:)`) was
// about a fifth of a new item's CreateItem.

import Foundation
import GRDB
import KeychainAccess
import KeychainCrypto

/// What a caller may know about an unlocked item (everything but the secret).
public struct ItemInfo: Hashable, Sendable {
  public var id: ItemID
  public var label: String
  public var attributes: [String: String]
  public var contentType: String
  public var created: Date
  public var modified: Date
}

extension KeychainStore {
  static func itemAAD(_ item: ItemID) -> [UInt8] {
    Array("item:\(item.collection):\(item.id)".utf8)
  }

  func seal(_ payload: ItemPayload, for item: ItemID, key: CipherKey) throws -> Data {
    Data(try AESGCM.seal(payload.encoded(), key: key, associatedData: Self.itemAAD(item)))
  }

  /// Replaces the item's rows in the attribute index, and the check value over them.
  func writeDigests(_ digests: [Data], for id: Int64, _ db: Database) throws {
    try db.cachedStatement(sql: "DELETE FROM item_digest WHERE itemID = ?")
      .execute(arguments: [id])
    let insert = try db.cachedStatement(
      sql: "INSERT INTO item_digest (digest, itemID) VALUES (?, ?)")
    for digest in Set(digests) { try insert.execute(arguments: [digest, id]) }
    try db.cachedStatement(sql: "UPDATE item SET indexMAC = ? WHERE id = ?")
      .execute(arguments: [try keys.indexMAC(item: id, digests: digests), id])
  }

  /// Creates an item in an unlocked collection, durably. With `replace`, an item of that
  /// collection with exactly the same attributes gets the new label and secret instead, and
  /// keeps its identity (and its owner), unless `mayReplace` says the caller may not change
  /// it (`notAllowed`). An item the caller cannot see (`hidden`: outside its share) is left
  /// alone, and a new one made beside it, as if it were not there. A new item is owned by
  /// `owner` (an application's identity; nil for none). Returns the item and whether it
  /// replaced one.
  @discardableResult
  public func createItem(
    in collection: String, label: String, attributes: [String: String], secret: SecureBytes,
    contentType: String = "text/plain", replace: Bool, owner: ItemOwner? = nil,
    mayReplace: (ItemID) -> Bool = { _ in true }, hidden: (ItemID) -> Bool = { _ in false }
  ) throws -> (item: ItemID, replaced: Bool) {
    try ItemPayload.checkLimits(label: label, attributes: attributes, secretCount: secret.count)
    let key = try dataKey(collection)
    let payload = ItemPayload(
      label: label, contentType: contentType, attributes: attributes, secret: secret)
    let wanted = try digests(attributes)
    let stamp = Self.seconds(now())
    let generation = knownItems.generation
    let (item, replaced, created) = try write(collection) { db in
      let collectionID = try collectionID(collection, db)
      if replace, let existing = try exactMatch(wanted, in: collection, db), !hidden(existing) {
        guard mayReplace(existing) else {
          throw StoreError.notAllowed(
            "an item with these attributes belongs to another program; it may not replace it")
        }
        try db.cachedStatement(sql: "UPDATE item SET sealed = ?, modified = ? WHERE id = ?")
          .execute(arguments: [try seal(payload, for: existing, key: key), stamp, existing.id])
        let created = try Int64.fetchOne(
          db.cachedStatement(sql: "SELECT created FROM item WHERE id = ?"), arguments: [existing.id]
        )
        return (existing, true, created ?? stamp)
      }
      let item = try insert(
        payload, digests: wanted, into: collection, collectionID: collectionID, key: key,
        stamp: stamp, db)
      if let owner { try Self.writeOwner(owner, of: item, key: key, db) }
      try db.cachedStatement(sql: "UPDATE collection SET modified = ? WHERE id = ?").execute(
        arguments: [stamp, collectionID])
      return (item, false, stamp)
    }
    if !replaced, let owner { accessCache.update(collection) { $0.owners[item.id] = owner } }
    knownItems.remember(item, seenIn: generation)
    metadata.remember(
      ItemInfo(
        id: item, label: label, attributes: attributes, contentType: contentType,
        created: Self.date(created), modified: Self.date(stamp)))
    return (item, replaced)
  }

  /// Adds one sealed item and its index digests inside the caller's transaction: created and
  /// modified at `stamp` unless `created` says otherwise, numbered by SQLite unless `id` (free,
  /// checked by the caller) is given.
  func insert(
    _ payload: ItemPayload, digests: [Data], into collection: String, collectionID: Int64,
    key: CipherKey, stamp: Int64, created: Int64? = nil, id: Int64? = nil, _ db: Database
  ) throws -> ItemID {
    if collection == Self.sessionCollection { sessionHasItems.withLock { $0 = true } }
    // The id is part of the associated data, so the row exists before its ciphertext.
    try db.cachedStatement(
      sql: "INSERT INTO item (id, collectionID, created, modified, sealed) VALUES (?, ?, ?, ?, x'')"
    ).execute(arguments: [id, collectionID, created ?? stamp, stamp])
    let item = ItemID(collection: collection, id: db.lastInsertedRowID)
    try db.cachedStatement(sql: "UPDATE item SET sealed = ? WHERE id = ?").execute(arguments: [
      try seal(payload, for: item, key: key), item.id,
    ])
    try writeDigests(digests, for: item.id, db)
    return item
  }

  /// An item's record and its dates (seconds since 1970), as stored.
  struct OpenedItem {
    var payload: ItemPayload
    var created: Int64
    var modified: Int64
  }

  /// Item `item` read and decrypted under its collection's data key. The sealed blob is
  /// decrypted where SQLite holds it, so it is never copied first (for a 10 MiB secret, one copy
  /// fewer per read).
  static func openItem(_ item: ItemID, key: CipherKey, _ db: Database) throws -> OpenedItem {
    let read = try RawRead(
      db.cachedStatement(sql: StoreStatements.loadItem),
      [.integer(item.id), .text(item.collection)])
    let opened = try read.first { row in
      do {
        let record = try row.withBlob(0) {
          try AESGCM.open($0, key: key, associatedData: itemAAD(item))
        }
        return OpenedItem(
          payload: try ItemPayload(decoding: record), created: row.int64(1),
          modified: row.int64(2))
      } catch CryptoError.authenticationFailed {
        throw StoreError.corrupt("item \(item) does not decrypt under its collection's key")
      }
    }
    guard let opened else { throw StoreError.noSuchItem }
    return opened
  }

  private func read<T>(_ item: ItemID, _ body: (OpenedItem) throws -> T) throws -> T {
    let key = try dataKey(item.collection)
    return try lookup(database(for: item.collection)) { db in
      try body(try Self.openItem(item, key: key, db))
    }
  }

  /// Changes an unlocked item in one durable transaction.
  func modify(_ item: ItemID, _ change: (inout ItemPayload) throws -> Void) throws {
    let key = try dataKey(item.collection)
    let stamp = Self.seconds(now())
    let info = try write(item.collection) { db in
      let opened = try Self.openItem(item, key: key, db)
      var payload = opened.payload
      try change(&payload)
      try ItemPayload.checkLimits(
        label: payload.label, attributes: payload.attributes, secretCount: payload.secret.count)
      try db.cachedStatement(sql: "UPDATE item SET sealed = ?, modified = ? WHERE id = ?").execute(
        arguments: [try seal(payload, for: item, key: key), stamp, item.id])
      if payload.attributes != opened.payload.attributes {
        try writeDigests(try digests(payload.attributes), for: item.id, db)
      }
      return ItemInfo(
        id: item, label: payload.label, attributes: payload.attributes,
        contentType: payload.contentType, created: Self.date(opened.created),
        modified: Self.date(stamp))
    }
    metadata.remember(info)
  }

  /// Whether `item` exists (locked or not).
  public func exists(_ item: ItemID) throws -> Bool {
    if knownItems.contains(item) { return true }
    let generation = knownItems.generation
    let found = try lookup(database(for: item.collection)) { db in
      try RawRead(
        db.cachedStatement(sql: StoreStatements.itemExists),
        [.integer(item.id), .text(item.collection)]
      ).first { _ in true } ?? false
    }
    if found { knownItems.remember(item, seenIn: generation) }
    return found
  }

  /// Label, attributes, content type and dates of an unlocked item.
  public func itemInfo(_ item: ItemID) throws -> ItemInfo {
    try record(item).info
  }

  /// The item's metadata and secret from one read and one decryption.
  func record(_ item: ItemID) throws -> (info: ItemInfo, secret: SecureBytes) {
    let (info, secret) = try read(item) { opened in
      let payload = opened.payload
      let info = ItemInfo(
        id: item, label: payload.label, attributes: payload.attributes,
        contentType: payload.contentType,
        created: Self.date(opened.created), modified: Self.date(opened.modified))
      return (info, payload.secret)
    }
    metadata.remember(info)
    return (info, secret)
  }

  /// The secret of an unlocked item, and its content type.
  public func secret(of item: ItemID) throws -> (secret: SecureBytes, contentType: String) {
    try read(item) { ($0.payload.secret, $0.payload.contentType) }
  }

  /// Replaces the secret of an unlocked item.
  public func setSecret(_ secret: SecureBytes, contentType: String, of item: ItemID) throws {
    try modify(item) {
      $0.secret = secret
      $0.contentType = contentType
    }
  }

  /// Changes the label of an unlocked item.
  public func setLabel(_ label: String, ofItem item: ItemID) throws {
    try modify(item) { $0.label = label }
  }

  /// Replaces the attributes of an unlocked item.
  public func setAttributes(_ attributes: [String: String], of item: ItemID) throws {
    try modify(item) { $0.attributes = attributes }
  }

  /// Deletes an item; the collection must be unlocked.
  public func deleteItem(_ item: ItemID) throws {
    _ = try dataKey(item.collection)
    try write(item.collection, freeingSpace: true) { db in
      let collectionID = try collectionID(item.collection, db)
      try db.cachedStatement(sql: "DELETE FROM item WHERE id = ? AND collectionID = ?").execute(
        arguments: [item.id, collectionID])
      guard db.changesCount == 1 else { throw StoreError.noSuchItem }
      try db.cachedStatement(sql: "UPDATE collection SET modified = ? WHERE id = ?").execute(
        arguments: [Self.seconds(now()), collectionID])
    }
    knownItems.forget(item)
    metadata.forget(item)
    accessCache.update(item.collection) { access in
      access.owners[item.id] = nil
      access.grants.removeAll { $0.item == item.id }
    }
  }
}

/// One item for `importItems` and `merge`.
public struct ImportedItem: Sendable {
  public var label: String
  public var attributes: [String: String]
  public var secret: SecureBytes
  public var contentType: String
  /// The number it had where it came from: kept as its id (and so its D-Bus path) if free.
  public var preferredID: Int64?
  /// Its dates where it came from; now if nil.
  public var created: Date?
  public var modified: Date?

  public init(
    label: String, attributes: [String: String], secret: SecureBytes,
    contentType: String = "text/plain", preferredID: Int64? = nil, created: Date? = nil,
    modified: Date? = nil
  ) {
    self.label = label
    self.attributes = attributes
    self.secret = secret
    self.contentType = contentType
    self.preferredID = preferredID
    self.created = created
    self.modified = modified
  }
}

extension KeychainStore {
  /// Adds many items to an unlocked collection in one transaction: all of them or none.
  /// For importers and bulk loads; duplicates are kept, as `createItem` with `replace: false`.
  @discardableResult
  public func importItems(_ items: [ImportedItem], into collection: String) throws -> [ItemID] {
    for item in items {
      try ItemPayload.checkLimits(
        label: item.label, attributes: item.attributes, secretCount: item.secret.count)
    }
    let key = try dataKey(collection)
    let stamp = Self.seconds(now())
    return try write(collection) { db in
      let collectionID = try collectionID(collection, db)
      var ids: [ItemID] = []
      ids.reserveCapacity(items.count)
      for item in items {
        let payload = ItemPayload(
          label: item.label, contentType: item.contentType, attributes: item.attributes,
          secret: item.secret)
        ids.append(
          try insert(
            payload, digests: try digests(item.attributes), into: collection,
            collectionID: collectionID, key: key, stamp: stamp, db))
      }
      return ids
    }
  }
}
