// SPDX-License-Identifier: MIT
//
// What per-application access keeps in the store: each item's owner, the grants the user
// gave, and the audit log's chain key. All are sealed under their collection's data key (see
// the `v6-access` migration), so they exist for keychaind only while the collection is
// unlocked, which is also the only time a secret can be read. Owners and grants are loaded
// once per unlock into memory and kept there until the next lock: deciding an access is then a
// dictionary lookup.

import Foundation
import GRDB
import KeychainAccess
import KeychainCrypto
import Synchronization

/// One unlocked collection's owners and grants, as loaded.
struct CollectionAccess: Sendable {
  var owners: [Int64: ItemOwner] = [:]
  var grants: [AccessGrant] = []
}

/// Loaded `CollectionAccess` by collection; emptied per collection when it locks.
final class AccessCache: Sendable {
  let loaded = Mutex<[String: CollectionAccess]>([:])

  func forget(_ collection: String) { loaded.withLock { $0[collection] = nil } }

  func update(_ collection: String, _ change: (inout CollectionAccess) -> Void) {
    loaded.withLock { loaded in
      // Changed in place: a copy taken out and put back copied every owner of the collection
      // at each CreateItem.
      guard loaded[collection] != nil else { return }
      change(&loaded[collection]!)
    }
  }
}

extension KeychainStore {
  static func ownerAAD(_ item: ItemID) -> [UInt8] {
    Array("owner:\(item.collection):\(item.id)".utf8)
  }
  static func grantAAD(_ collection: String, _ id: Int64) -> [UInt8] {
    Array("grant:\(collection):\(id)".utf8)
  }
  static func auditKeyAAD(_ collection: String) -> [UInt8] {
    Array("audit key:\(collection)".utf8)
  }

  /// The owners and grants of an unlocked collection, loaded on first use after its unlock.
  func access(_ collection: String) throws -> CollectionAccess {
    if let known = accessCache.loaded.withLock({ $0[collection] }) { return known }
    let key = try dataKey(collection)
    let access = try lookup(database(for: collection)) { db in
      let id = try collectionID(collection, db)
      var access = CollectionAccess()
      for row in try Row.fetchAll(
        db,
        sql:
          "SELECT o.itemID, o.sealed FROM item_owner o JOIN item i ON i.id = o.itemID WHERE i.collectionID = ?",
        arguments: [id])
      {
        let item = ItemID(collection: collection, id: row[0])
        access.owners[item.id] = ItemOwner(
          sealedText: try Self.openText(row[1], key: key, aad: Self.ownerAAD(item)))
      }
      for row in try Row.fetchAll(
        db, sql: "SELECT id, sealed FROM access_grant WHERE collectionID = ?", arguments: [id])
      {
        let json = try Self.openText(row[1], key: key, aad: Self.grantAAD(collection, row[0]))
        var grant = try JSONDecoder().decode(AccessGrant.self, from: Data(json.utf8))
        grant.id = row[0]
        access.grants.append(grant)
      }
      return access
    }
    // A lock since the load began would leave stale rows in memory: keep them only if the
    // collection is still unlocked.
    if !isLocked(collection) { accessCache.loaded.withLock { $0[collection] = access } }
    return access
  }

  private static func openText(_ sealed: Data, key: CipherKey, aad: [UInt8]) throws -> String {
    do {
      let plain = try AESGCM.open(Array(sealed), key: key, associatedData: aad)
      return plain.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    } catch CryptoError.authenticationFailed {
      throw StoreError.corrupt("an access record does not decrypt under its collection's key")
    }
  }

  private static func seal(_ text: String, key: CipherKey, aad: [UInt8]) throws -> Data {
    Data(try AESGCM.seal(Array(text.utf8), key: key, associatedData: aad))
  }

  /// The owner of `item`, or nil for an item with no owner (stored before access control, or
  /// imported). The collection must be unlocked.
  public func owner(of item: ItemID) throws -> ItemOwner? {
    try access(item.collection).owners[item.id]
  }

  /// Each item's owner in an unlocked collection, by item number; items without one are absent.
  public func owners(in collection: String) throws -> [Int64: ItemOwner] {
    try access(collection).owners
  }

  /// Makes `owner` own `item` (nil: nobody), durably.
  public func setOwner(_ owner: ItemOwner?, of item: ItemID) throws {
    let key = try dataKey(item.collection)
    try write(item.collection) { db in
      try Self.writeOwner(owner, of: item, key: key, db)
    }
    accessCache.update(item.collection) { $0.owners[item.id] = owner }
  }

  /// Gives items new owners, in one durable transaction (see `setOwner`).
  public func setOwners(_ owners: [ItemID: ItemOwner], in collection: String) throws {
    guard !owners.isEmpty else { return }
    let key = try dataKey(collection)
    try write(collection) { db in
      for (item, owner) in owners where item.collection == collection {
        try Self.writeOwner(owner, of: item, key: key, db)
      }
    }
    accessCache.update(collection) { access in
      for (item, owner) in owners where item.collection == collection {
        access.owners[item.id] = owner
      }
    }
  }

  static func writeOwner(_ owner: ItemOwner?, of item: ItemID, key: CipherKey, _ db: Database)
    throws
  {
    guard let owner else {
      try db.cachedStatement(sql: "DELETE FROM item_owner WHERE itemID = ?").execute(arguments: [
        item.id
      ])
      return
    }
    try db.cachedStatement(sql: "INSERT OR REPLACE INTO item_owner (itemID, sealed) VALUES (?, ?)")
      .execute(arguments: [item.id, try seal(owner.sealedText, key: key, aad: ownerAAD(item))])
  }

  /// The grants of an unlocked collection.
  public func grants(in collection: String) throws -> [AccessGrant] {
    try access(collection).grants
  }

  /// The grants of `collection` that cover `item` for application `app`: on the item, its
  /// collection, or the named group that owns it.
  public func grants(for app: String, on item: ItemID) throws -> [AccessGrant] {
    let access = try access(item.collection)
    let owner = access.owners[item.id]?.key
    return access.grants.filter {
      $0.app == app && $0.covers(collection: item.collection, item: item.id, owner: owner)
    }
  }

  /// Stores `grant` (its `id` is assigned), durably; returns it as stored. An identical grant
  /// (same application, pin and scope) is not stored twice.
  @discardableResult
  public func addGrant(_ grant: AccessGrant) throws -> AccessGrant {
    if let same = try grants(in: grant.collection).first(where: {
      $0.app == grant.app && $0.pin == grant.pin && $0.item == grant.item
        && $0.group == grant.group
    }) {
      return same
    }
    let key = try dataKey(grant.collection)
    let collection = grant.collection
    let stored = try write(collection) { db in
      let collectionID = try collectionID(collection, db)
      try db.cachedStatement(sql: "INSERT INTO access_grant (collectionID, sealed) VALUES (?, x'')")
        .execute(arguments: [collectionID])
      var stored = grant
      stored.id = db.lastInsertedRowID
      let json = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
      try db.cachedStatement(sql: "UPDATE access_grant SET sealed = ? WHERE id = ?").execute(
        arguments: [
          try Self.seal(json, key: key, aad: Self.grantAAD(collection, stored.id)), stored.id,
        ])
      return stored
    }
    accessCache.update(collection) { $0.grants.append(stored) }
    return stored
  }

  /// Removes the grants of `collection` numbered `ids`, durably; returns how many there were.
  /// Works while the collection is locked: revoking needs no password.
  @discardableResult
  public func removeGrants(_ ids: [Int64], in collection: String) throws -> Int {
    guard !ids.isEmpty else { return 0 }
    let removed = try write(collection, freeingSpace: true) { db in
      let collectionID = try collectionID(collection, db)
      var removed = 0
      for id in ids {
        try db.cachedStatement(sql: "DELETE FROM access_grant WHERE id = ? AND collectionID = ?")
          .execute(arguments: [id, collectionID])
        removed += db.changesCount
      }
      return removed
    }
    accessCache.update(collection) { access in access.grants.removeAll { ids.contains($0.id) } }
    return removed
  }

  /// The audit log's chain key, sealed under `collection`'s data key: the one already kept for
  /// another unlocked collection (`known`), else the one this collection holds, else a new one.
  /// Stored for this collection if it had none, so that unlocking any collection later
  /// recovers the same key.
  public func auditKey(from collection: String, known: SecureBytes?) throws -> SecureBytes {
    let key = try dataKey(collection)
    let held = try sealedAuditKey(collection).map { try Self.openAuditKey($0, collection, key) }
    if let held, known == nil { return held.key }
    let chosen = known ?? SecureBytes.random(count: 32)
    if held?.key != chosen { try sealAuditKey(chosen, anchor: nil, in: collection, key) }
    return chosen
  }

  /// Where the audit log's chain had got to when `collection` (unlocked) last recorded it.
  public func auditAnchor(in collection: String) throws -> AuditChain.Anchor? {
    let key = try dataKey(collection)
    return try sealedAuditKey(collection).flatMap {
      try Self.openAuditKey($0, collection, key).anchor
    }
  }

  /// Keeps `anchor` beside the chain key `auditKey` in every unlocked collection that holds
  /// that key, durably; returns how many. Written when keychaind stops and every few minutes
  /// of logging, never per record: a read must not cost a write to the store.
  @discardableResult
  public func keepAuditAnchor(_ anchor: AuditChain.Anchor, auditKey: SecureBytes) throws -> Int {
    var kept = 0
    for collection in try collections().map(\.name)
    where collection != Self.sessionCollection && !isLocked(collection) {
      let key = try dataKey(collection)
      guard let sealed = try sealedAuditKey(collection),
        try Self.openAuditKey(sealed, collection, key).key == auditKey
      else { continue }
      try sealAuditKey(auditKey, anchor: anchor, in: collection, key)
      kept += 1
    }
    return kept
  }

  private func sealedAuditKey(_ collection: String) throws -> Data? {
    try lookup(database(for: collection)) { db in
      try Data.fetchOne(
        db, sql: "SELECT sealed FROM audit_key WHERE collectionID = ?",
        arguments: [try collectionID(collection, db)])
    }
  }

  /// The sealed record is the 32-byte key, then, once one was kept, the anchor: its sequence
  /// number (8 bytes, big-endian) and MAC (32 bytes), then its floor's sequence number and link
  /// (40 bytes, absent in an anchor kept before floors were).
  private static func openAuditKey(_ sealed: Data, _ collection: String, _ key: CipherKey) throws
    -> (key: SecureBytes, anchor: AuditChain.Anchor?)
  {
    let plain: SecureBytes
    do {
      plain = try AESGCM.open(Array(sealed), key: key, associatedData: auditKeyAAD(collection))
    } catch CryptoError.authenticationFailed {
      throw StoreError.corrupt("the audit key of \(collection) does not decrypt")
    }
    guard [32, 72, 112].contains(plain.count) else {
      throw StoreError.corrupt("the audit key of \(collection) has \(plain.count) bytes")
    }
    guard plain.count > 32 else { return (plain, nil) }
    let tail = plain.slice(32..<plain.count).copyBytes()
    func number(_ at: Int) -> UInt64 {
      tail[at..<at + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
    let floor =
      tail.count == 80 ? AuditChain.Floor(seq: number(40), prev: Array(tail[48..<80])) : nil
    return (
      plain.slice(0..<32),
      AuditChain.Anchor(seq: number(0), mac: Array(tail[8..<40]), floor: floor)
    )
  }

  private func sealAuditKey(
    _ auditKey: SecureBytes, anchor: AuditChain.Anchor?, in collection: String, _ key: CipherKey
  ) throws {
    let count = anchor == nil ? 32 : anchor?.floor == nil ? 72 : 112
    let plain = SecureBytes(count: count) { buffer in
      auditKey.withUnsafeBytes { buffer.copyMemory(from: $0) }
      guard let anchor else { return }
      func put(_ number: UInt64, at offset: Int) {
        for index in 0..<8 {
          buffer[offset + index] = UInt8(truncatingIfNeeded: number >> (56 - 8 * index))
        }
      }
      put(anchor.seq, at: 32)
      for (index, byte) in anchor.mac.prefix(32).enumerated() { buffer[40 + index] = byte }
      guard let floor = anchor.floor else { return }
      put(floor.seq, at: 72)
      for (index, byte) in floor.prev.prefix(32).enumerated() { buffer[80 + index] = byte }
    }
    let sealed = Data(
      try AESGCM.seal(plain, key: key, associatedData: Self.auditKeyAAD(collection)))
    try write(collection) { db in
      try db.cachedStatement(
        sql: "INSERT OR REPLACE INTO audit_key (collectionID, sealed) VALUES (?, ?)"
      ).execute(arguments: [try collectionID(collection, db), sealed])
    }
  }
}
