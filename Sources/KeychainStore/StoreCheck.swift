// SPDX-License-Identifier: MIT
//
// `keychainctl check`: everything that can be known about a store's health without changing
// it, including a store keychaind refuses to open. Damage that only some items show (a page of
// the index, one item's record) is named item by item, never hidden.

import Foundation
import GRDB
import KeychainCrypto

/// What a check of a store found.
public struct StoreCheckReport: Sendable {
  /// One problem: the file, collection or item it is in, and what is wrong.
  public struct Problem: Sendable, Hashable {
    public let place: String
    public let description: String
  }

  public let directory: String
  public internal(set) var problems: [Problem] = []
  /// What was checked, for the report ("3 collections, 120 items", "items of login decrypted").
  public internal(set) var checked: [String] = []
  /// The collections whose items were decrypted with the password given (none without one).
  public internal(set) var decrypted: [String] = []

  /// True when nothing is wrong.
  public var isHealthy: Bool { problems.isEmpty }

  mutating func problem(_ place: String, _ description: String) {
    problems.append(Problem(place: place, description: description))
  }

  /// A store error: the file a `damaged` error names, else `place`.
  mutating func problem(_ error: StoreError, at place: String) {
    if case .damaged(let file, let problem, _) = error {
      self.problem(file, problem)
    } else {
      self.problem(place, error.description)
    }
  }
}

/// The read-only check behind `keychainctl check`.
public enum StoreCheck {
  /// Checks the store in `directory` and changes nothing: the files' headers and log, SQLite's
  /// `integrity_check`, the schema and the index key, each collection's key record, each item's
  /// index rows; with `password`, every item of each collection that the password opens is
  /// decrypted too.
  public static func run(directory: String, password: SecureBytes? = nil) -> StoreCheckReport {
    var report = StoreCheckReport(directory: directory)
    let path = directory + "/" + StoreFiles.databaseName
    do {
      let found = try StoreInspection(directory)
      guard found.databaseExists || found.logExists || found.keyExists else {
        report.problem(directory, "there is no store here")
        return report
      }
      try found.checkFiles()
    } catch {
      report.problem(error, at: directory)
      return report
    }
    let keys: StoreKeys
    let queue: DatabaseQueue
    do {
      keys = try StoreKeys(index: StoreFiles.readIndexKey(in: directory))
      queue = try StoreFiles.openChecked(path, keys: keys, migrator: Schema.migrator(keys))
    } catch let error as StoreError {
      report.problem(error, at: path)
      return report
    } catch {
      report.problem(path, "\(error)")
      return report
    }
    defer { try? queue.close() }
    do {
      try queue.read { db in
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        for line in integrity where line != "ok" { report.problem(path, "SQLite: \(line)") }
        try checkCollections(db, keys: keys, password: password, &report)
      }
    } catch {
      report.problem(path, "reading it failed: \(error)")
    }
    return report
  }

  private static func checkCollections(
    _ db: Database, keys: StoreKeys, password: SecureBytes?, _ report: inout StoreCheckReport
  ) throws {
    let rows = try Row.fetchAll(
      db,
      sql: """
        SELECT id, name, sealedLabel, kdfSalt, kdfIterations, kdfMemoryKiB, kdfParallelism,
          wrappedKey, keyMAC FROM collection ORDER BY id
        """)
    var items = 0
    for row in rows {
      let name: String = row["name"]
      let place = "collection \(name)"
      if (try? AESGCM.open(
        Array(row["sealedLabel"] as Data), key: keys.metadata,
        associatedData: KeychainStore.labelAAD(name))) == nil
      {
        report.problem(place, "its label does not decrypt: the record is damaged")
      }
      var dataKey: CipherKey?
      if row["keyMAC"] as Data? != (try keys.collectionKeyMAC(row)) {
        report.problem(place, "its key record is damaged: no password can open it")
      } else if let password {
        dataKey = try? CipherKey.gcm(
          KeychainStore.unwrapKey(row, collection: name, password: password))
      }
      let ids = try Int64.fetchAll(
        db, sql: StoreStatements.collectionItems, arguments: [row["id"]])
      items += ids.count
      let unindexed = try IndexCheck.damaged(inCollection: row["id"], keys: keys, db).map {
        "\(ItemID(collection: name, id: $0))"
      }
      var undecryptable: [String] = []
      for id in ids {
        let item = ItemID(collection: name, id: id)
        if let dataKey, (try? KeychainStore.openItem(item, key: dataKey, db)) == nil {
          undecryptable.append("\(item)")
        }
      }
      if !unindexed.isEmpty {
        report.problem(
          place,
          "the search index of \(unindexed.count) item(s) is damaged, so searches miss them: "
            + unindexed.joined(separator: ", ")
            + " (keychaind rebuilds it from the items when the collection is unlocked)")
      }
      if !undecryptable.isEmpty {
        report.problem(
          place,
          "\(undecryptable.count) item(s) do not decrypt, their records are damaged: "
            + undecryptable.joined(separator: ", "))
      }
      if dataKey != nil {
        report.checked.append("every item of \(name) decrypted")
        report.decrypted.append(name)
      }
      try checkSlots(db, keys: keys, collection: name, id: row["id"], &report)
    }
    report.checked.insert("\(rows.count) collection(s), \(items) item(s)", at: 0)
  }
}

extension StoreCheck {
  /// The key slots of one collection besides its password: each record as its check value
  /// was made over, and its label decrypting (a store from before key slots has none).
  fileprivate static func checkSlots(
    _ db: Database, keys: StoreKeys, collection: String, id: Int64,
    _ report: inout StoreCheckReport
  ) throws {
    guard try db.tableExists("key_slot") else { return }
    let rows = try Row.fetchAll(
      db,
      sql: """
        SELECT id, kind, sealedLabel, salt, wrappedKey, sealed, policy, keyMAC FROM key_slot
        WHERE collectionID = ? ORDER BY id
        """, arguments: [id])
    var damaged: [Int64] = []
    for row in rows {
      let slot: Int64 = row["id"]
      let expected = try keys.slotMAC(
        collection: collection, kind: row["kind"], salt: row["salt"], wrappedKey: row["wrappedKey"],
        sealed: row["sealed"], policy: row["policy"])
      let label = try? AESGCM.open(
        Array(row["sealedLabel"] as Data), key: keys.metadata,
        associatedData: KeychainStore.slotLabelAAD(collection, slot))
      if row["keyMAC"] as Data? != expected || label == nil { damaged.append(slot) }
    }
    if !damaged.isEmpty {
      report.problem(
        "collection \(collection)",
        "key slot(s) \(damaged.map(String.init).joined(separator: ", ")) are damaged: they no "
          + "longer open it (its password still does)")
    } else if !rows.isEmpty {
      report.checked.append("\(rows.count) key slot(s) of \(collection) intact")
    }
  }
}

/// The check value over an item's index rows (`StoreKeys.indexMAC`).
enum IndexCheck {
  /// The items of collection id `collectionID` whose index rows are not the ones their check
  /// value was made over. One statement walks the items and their rows in order, so the cost is
  /// a cursor step per row and one MAC per item: about 2 µs an item here.
  static func damaged(inCollection collectionID: Int64, keys: StoreKeys, _ db: Database) throws
    -> [Int64]
  {
    let rows = try Row.fetchCursor(
      db.cachedStatement(sql: StoreStatements.indexRowsOfCollection), arguments: [collectionID])
    var damaged: [Int64] = []
    var current: (id: Int64, stored: Data?, digests: [Data])?
    func finish() throws {
      guard let item = current else { return }
      if item.stored != (try keys.indexMAC(item: item.id, sortedDigests: item.digests)) {
        damaged.append(item.id)
      }
    }
    while let row = try rows.next() {
      let id: Int64 = row[0]
      if current?.id != id {
        try finish()
        current = (id, row[1], [])
      }
      if let digest = row[2] as Data? { current!.digests.append(digest) }
    }
    try finish()
    return damaged
  }
}

/// What `KeychainStore.repairIndex` did.
public struct IndexRepair: Sendable {
  /// Items whose index rows were damaged and were rebuilt from the decrypted item.
  public var rebuilt: [ItemID] = []
  /// Items whose index rows were damaged and whose record does not decrypt either.
  public var unreadable: [ItemID] = []
}

extension KeychainStore {
  /// Finds the items of unlocked `collection` whose index rows are damaged (searches miss
  /// them) and rebuilds the rows from the decrypted items, in one transaction.
  public func repairIndex(_ collection: String) throws -> IndexRepair {
    let key = try dataKey(collection)
    let find = { (db: Database) in
      try IndexCheck.damaged(
        inCollection: try self.collectionID(collection, db), keys: self.keys, db
      )
      .map { ItemID(collection: collection, id: $0) }
    }
    // On a connection of its own for the file: at 100k items the walk takes a while, and
    // lookups must not wait behind it.
    let damaged =
      collection == Self.sessionCollection
      ? try memory.read(find) : try StoreFiles.withReader(directory, find)
    guard !damaged.isEmpty else { return IndexRepair() }
    return try write(collection) { db in
      var repair = IndexRepair()
      for item in damaged {
        guard let payload = try? Self.openItem(item, key: key, db).payload else {
          repair.unreadable.append(item)
          continue
        }
        try writeDigests(try digests(payload.attributes), for: item.id, db)
        repair.rebuilt.append(item)
      }
      return repair
    }
  }
}

extension KeychainStore {
  /// SQLite's `quick_check` of the file, on a connection of its own so that lookups go on
  /// meanwhile (96 ms at 100k items here): the problems it reports, none when the file is whole.
  public func quickCheck() throws -> [String] {
    try StoreFiles.withReader(directory) { db in
      try String.fetchAll(db, sql: "PRAGMA quick_check").filter { $0 != "ok" }
    }
  }
}
