// SPDX-License-Identifier: MIT
//
// Attribute search without plaintext. Each (name, value) pair of an item is indexed as the first
// 16 bytes of HMAC-SHA256(index key, name NUL value). A search probes how common each of its
// pairs is (counting at most 2, then 16, then 257), walks the item ids of the rarest one, and
// keeps those that have every other pair: an exact search with one hit costs a few B-tree
// lookups at any size.

import Foundation
import GRDB
import KeychainCrypto

/// One item: its collection and its number there.
public struct ItemID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The collection's name (object path element).
  public let collection: String
  /// The item's number, unique in the store and never reused.
  public let id: Int64

  public init(collection: String, id: Int64) {
    self.collection = collection
    self.id = id
  }

  public static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.collection, lhs.id) < (rhs.collection, rhs.id)
  }

  public var description: String { "\(collection)/\(id)" }
}

extension KeychainStore {
  /// The index digests of `attributes`, one per pair.
  func digests(_ attributes: [String: String]) throws -> [Data] {
    try attributes.map { try keys.digest($0.key, $0.value) }
  }

  /// Items of one database having every digest, newest first; optionally in one collection.
  func matching(_ digests: [Data], collection: String?, _ db: Database) throws -> [ItemID] {
    let scope = try collection.map { ($0, try collectionID($0, db)) }
    guard !digests.isEmpty else {
      if let (name, id) = scope {
        return try Int64.fetchAll(
          db.cachedStatement(sql: StoreStatements.collectionItems), arguments: [id]
        ).reversed().map { ItemID(collection: name, id: $0) }
      }
      return try Row.fetchAll(db.cachedStatement(sql: StoreStatements.allItems))
        .map { ItemID(collection: $0[1], id: $0[0]) }
    }
    // Probe each pair to 2 first: a pair no item has ends the search, and an exact lookup
    // usually has a pair only one item has, which then drives it. When every pair is shared,
    // they are counted further, to 16, then to 257, until one stays under the limit: that
    // one is the rarest, and a pair every item has (`xdg:schema`) is not counted to 257 when
    // another is rare.
    let unique = Array(Set(digests))
    var counted: [(Data, Int)] = []
    for limit in Self.probeLimits {
      counted = Array(zip(unique, try itemCounts(unique, limit: limit, db)))
      if counted.contains(where: { $0.1 == 0 }) { return [] }
      if counted.contains(where: { $0.1 < limit }) { break }
    }
    counted.sort { $0.1 < $1.1 }
    let others = counted.dropFirst().map(\.0)
    // The text depends only on the number of pairs, so the prepared statement is reused.
    let statement = try db.cachedStatement(
      sql: StoreStatements.search(otherPairs: others.count, scoped: scope != nil))
    let pairs = ([counted[0].0] + others).map(RawArgument.blob)
    var found: [ItemID] = []
    if let (name, id) = scope {
      try RawRead(statement, pairs + [.integer(id)]).forEachRow { row in
        found.append(ItemID(collection: name, id: row.int64(0)))
        return true
      }
    } else {
      try RawRead(statement, pairs).forEachRow { row in
        found.append(ItemID(collection: row.text(1), id: row.int64(0)))
        return true
      }
    }
    return found
  }

  /// The counts a search probes its pairs to, one after the other (see `matching`).
  static let probeLimits = [2, 16, 257]

  /// How many items have each pair of `digests`, counting at most `limit`: one statement for
  /// all of them (its text depends only on how many there are, so it is prepared once).
  private func itemCounts(_ digests: [Data], limit: Int, _ db: Database) throws -> [Int] {
    let statement = try db.cachedStatement(sql: StoreStatements.pairCounts(digests.count))
    let arguments = digests.flatMap { [RawArgument.blob($0), .integer(Int64(limit))] }
    let counts = try RawRead(statement, arguments).first { row in
      (0..<Int32(digests.count)).map { Int(row.int64($0)) }
    }
    return counts ?? digests.map { _ in 0 }
  }

  /// Items whose attributes include every pair of `attributes` (exact, case-sensitive), across
  /// all collections or in one, split by lock state: libsecret needs the locked matches to
  /// know it should prompt. An empty dictionary matches every item.
  public func searchItems(_ attributes: [String: String], in collection: String? = nil) throws
    -> (unlocked: [ItemID], locked: [ItemID])
  {
    let wanted = try digests(attributes)
    let (kept, generation) = searches.answer(collection: collection, digests: wanted)
    let found: [ItemID]
    if let kept {
      found = kept
    } else {
      let sources = collection.map { [database(for: $0)] } ?? itemDatabases
      found = try sources.flatMap { source in
        try lookup(source) { db in try matching(wanted, collection: collection, db) }
      }
      searches.keep(found, collection: collection, digests: wanted, seenIn: generation)
    }
    // In one collection, its lock state once, not a lookup per item (a KWallet folder lists
    // its thousand entries through here).
    if let collection {
      return isLocked(collection) ? ([], found) : (found, [])
    }
    let open = unlocked.withLock { Set($0.keys) }
    return (
      found.filter { open.contains($0.collection) }, found.filter { !open.contains($0.collection) }
    )
  }

  /// Every item of `collection`, locked or not, oldest first.
  public func items(in collection: String) throws -> [ItemID] {
    try lookup(database(for: collection)) { db in
      let id = try collectionID(collection, db)
      return try Int64.fetchAll(
        db.cachedStatement(sql: StoreStatements.collectionItems), arguments: [id]
      )
      .map { ItemID(collection: collection, id: $0) }
    }
  }

  /// The item in `collection` whose attribute set is exactly `digests`, if any.
  func exactMatch(_ digests: [Data], in collection: String, _ db: Database) throws -> ItemID? {
    let wanted = Set(digests).count
    for candidate in try matching(digests, collection: collection, db) {
      let count = try Int.fetchOne(
        db.cachedStatement(sql: StoreStatements.pairsOfItem), arguments: [candidate.id])
      if count == wanted { return candidate }
    }
    return nil
  }
}
