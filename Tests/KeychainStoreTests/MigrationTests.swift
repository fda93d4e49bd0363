// SPDX-License-Identifier: MIT
//
// Upgrades. A store written at each older schema, v1 to v4, the way the code of its time wrote
// it (LegacyStore), opens with the current code, which migrates it: every item reads back with
// its label, attributes, secret, content type and dates, searches find it through the digests
// the old version wrote, its check values are the ones the keys compute now, keychainctl check
// finds it healthy, and it reopens unchanged. Each migration alone keeps every row it finds and
// adds its own. The real binary on a store made by the previous release: UpgradeTests.

import Foundation
import GRDB
import KeychainCrypto
import KeychainTesting
import Testing

@testable import KeychainStore

@Suite struct MigrationTests {
  /// The store in `legacy`'s directory, opened (and so migrated) by the current code.
  private func open(_ legacy: LegacyStore) throws -> KeychainStore {
    try KeychainStore(directory: legacy.directory, kdf: .testing) {
      Date(timeIntervalSince1970: 1_800_000_000)
    }
  }

  private func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: Double(seconds)) }

  /// Everything a caller reads of the store: collections, aliases, each item and its secret
  /// (each collection unlocked with its own password), searches, import records and lock
  /// policies, all as `legacy` wrote them.
  private func expectContents(_ store: KeychainStore, _ legacy: LegacyStore) throws {
    let collections = try store.collections().filter { !$0.isInMemory }
    #expect(collections.map(\.name) == LegacyStore.collections.map(\.name))
    for (found, written) in zip(collections, LegacyStore.collections) {
      #expect(found.label == written.label)
      #expect(found.created == date(written.created) && found.modified == date(written.modified))
      #expect(found.isLocked)
    }
    // Another collection's password is a wrong password, not a damaged key record.
    #expect(throws: StoreError.wrongPassword) {
      try store.unlock("collection2", password: secure("login password"))
    }
    for collection in LegacyStore.collections {
      try store.unlock(collection.name, password: secure(collection.password))
      let ids = legacy.written.filter { $0.value.collection == collection.name }.keys
      #expect(try Set(store.items(in: collection.name).map(\.id)) == Set(ids))
    }
    #expect(try store.alias("default") == "login")
    #expect(try store.alias("work") == "collection2")
    for (id, item) in legacy.written {
      let itemID = ItemID(collection: item.collection, id: id)
      let info = try store.itemInfo(itemID)
      #expect(info.label == item.label, "\(itemID)")
      #expect(info.attributes == item.attributes, "\(itemID)")
      #expect(info.contentType == item.contentType, "\(itemID)")
      #expect(info.created == date(item.created), "\(itemID)")
      #expect(info.modified == date(item.modified), "\(itemID)")
      let (secret, contentType) = try store.secret(of: itemID)
      #expect(secret.copyBytes() == item.secret, "\(itemID)")
      #expect(contentType == item.contentType, "\(itemID)")
      // Found by its whole attribute set, and by each pair with exactly the items having it.
      let matches = try store.searchItems(item.attributes, in: item.collection).unlocked
      #expect(item.attributes.isEmpty ? matches.contains(itemID) : matches == [itemID])
      for pair in item.attributes {
        let having = legacy.written.filter { $0.value.attributes[pair.key] == pair.value }
        let found = try store.searchItems([pair.key: pair.value])
        #expect(Set(found.unlocked.map(\.id)) == Set(having.keys), "\(pair)")
      }
    }
    #expect(try store.importSources() == (legacy.version >= .v3 ? [LegacyStore.importSource] : []))
    let policies = try store.lockPolicies()
    #expect(policies == (legacy.version >= .v4 ? ["collection2": LegacyStore.lockPolicy] : [:]))
  }

  /// A read-only connection to the closed store's file.
  private func reader(_ legacy: LegacyStore) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.readonly = true
    return try DatabaseQueue(path: legacy.databasePath, configuration: configuration)
  }

  /// The file as the current version leaves it: every migration, the index key's check, each
  /// collection's keyMAC and each item's indexMAC as `StoreKeys` computes them now (from the
  /// item's attributes, so the digests the old version wrote are checked too), the commit
  /// counter, and the ledger beside it at that count. Returns the count.
  private func expectCurrentFile(_ legacy: LegacyStore) throws -> Int64 {
    let keys = try StoreKeys(index: legacy.indexKey)
    let queue = try reader(legacy)
    defer { try? queue.close() }
    let count: Int64 = try queue.read { db in
      #expect(
        try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
          == SchemaVersion.migrations)
      let check = try Data.fetchOne(
        db, sql: "SELECT value FROM meta WHERE name = ?", arguments: ["index-key-check"])
      #expect(check == (try keys.keyCheck()))
      for row in try Row.fetchAll(db, sql: "SELECT * FROM collection") {
        let name: String = row["name"]
        #expect(row["keyMAC"] as Data? == (try keys.collectionKeyMAC(row)), "\(name)")
      }
      for (id, item) in legacy.written {
        let digests = try item.attributes.map { try keys.digest($0.key, $0.value) }
        let stored = try Data.fetchOne(
          db, sql: "SELECT indexMAC FROM item WHERE id = ?", arguments: [id])
        #expect(stored == (try keys.indexMAC(item: id, digests: digests)), "item \(id)")
      }
      return try #require(
        try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'commit-count'"))
    }
    #expect(
      CommitLedger.read(in: legacy.directory)
        == .valid(.init(acknowledged: count, checkpointed: count)))
    return count
  }

  /// keychainctl check's verdict: healthy, every item counted, and every item of the collection
  /// each password opens decrypted.
  private func expectHealthy(_ legacy: LegacyStore) {
    for collection in LegacyStore.collections {
      let report = StoreCheck.run(
        directory: legacy.directory, password: secure(collection.password))
      #expect(report.problems == [], "\(collection.name)")
      #expect(report.checked.first == "2 collection(s), \(legacy.written.count) item(s)")
      #expect(report.checked.contains("every item of \(collection.name) decrypted"))
    }
  }

  /// A store written at `version` opens, migrated to the latest schema, with every row as it
  /// was written; its file then holds the current check values and counter, it checks healthy,
  /// it reopens unchanged, and a write after the upgrade is counted.
  @Test(arguments: SchemaVersion.allCases)
  func aStoreWrittenAtAnOlderSchemaOpensWithEverythingIntact(_ version: SchemaVersion) throws {
    let legacy = try LegacyStore(version)
    var store = try open(legacy)
    try expectContents(store, legacy)
    try store.close()
    let count = try expectCurrentFile(legacy)
    expectHealthy(legacy)

    // Opened again: nothing to migrate, nothing written, the same contents.
    let database = try Data(contentsOf: URL(fileURLWithPath: legacy.databasePath))
    store = try open(legacy)
    try expectContents(store, legacy)
    try store.close()
    #expect(try Data(contentsOf: URL(fileURLWithPath: legacy.databasePath)) == database)
    #expect(try expectCurrentFile(legacy) == count)

    // And written to: the counter and the ledger the upgrade added count the change.
    store = try open(legacy)
    try store.unlock("login", password: secure("login password"))
    try store.createItem(
      in: "login", label: "after", attributes: ["new": "1"], secret: secure("s"), replace: false)
    try store.close()
    let queue = try reader(legacy)
    defer { try? queue.close() }
    #expect(try queue.read { try Schema.commitCount($0) } == count + 1)
    #expect(
      CommitLedger.read(in: legacy.directory)
        == .valid(.init(acknowledged: count + 1, checkpointed: count + 1)))
  }

  /// A v1 store has no check value for its index key yet, so at the first open nothing but the
  /// data tells a wrong index.key (another store's, a restore that mixed two backups) from its
  /// own. The store promises to refuse that before writing a byte, as it does from v2 on; and
  /// with its own key put back, the store must open as it was.
  @Test func aV1StoreWithAnotherStoresIndexKeyIsRefusedAndNotMigrated() throws {
    let legacy = try LegacyStore(.v1)
    let other = try LegacyStore(.v1)
    let keyPath = legacy.directory + "/" + StoreFiles.indexKeyName
    let ownKey = try Data(contentsOf: URL(fileURLWithPath: keyPath))
    try Data(contentsOf: URL(fileURLWithPath: other.directory + "/" + StoreFiles.indexKeyName))
      .write(to: URL(fileURLWithPath: keyPath))
    let database = try Data(contentsOf: URL(fileURLWithPath: legacy.databasePath))
    #expect(throws: StoreError.self, "opened with another store's index.key") {
      try open(legacy).close()
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: legacy.databasePath)) == database)
    try ownKey.write(to: URL(fileURLWithPath: keyPath))
    let store = try open(legacy)
    try expectContents(store, legacy)
    try store.close()
  }

  /// Every row of every table but GRDB's own, with only the columns of `shape` where given.
  private func rows(_ db: Database, columnsOf shape: [String: [String]]? = nil) throws
    -> [String: [Row]]
  {
    var contents: [String: [Row]] = [:]
    let tables = try String.fetchAll(
      db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'grdb_migrations'")
    for table in tables {
      let columns = try shape?[table] ?? db.columns(in: table).map(\.name)
      let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
      contents[table] = try Row.fetchAll(
        db, sql: "SELECT \(list) FROM \"\(table)\" ORDER BY \(list)")
    }
    return contents
  }

  /// Each step alone, from the version `version` wrote to the next: every row there before is
  /// still there, unchanged, and the step adds what it is for.
  @Test(arguments: SchemaVersion.allCases)
  func eachStepKeepsEveryRowAndAddsItsOwn(from version: SchemaVersion) throws {
    let legacy = try LegacyStore(version)
    let queue = try DatabaseQueue(path: legacy.databasePath)
    defer { try? queue.close() }
    let before = try queue.read { try rows($0) }
    let shape = before.mapValues { $0.first.map { Array($0.columnNames) } ?? [] }
    try Schema.migrator(StoreKeys(index: legacy.indexKey)).migrate(queue, upTo: version.next)
    try queue.read { db in
      let after = try rows(db, columnsOf: shape.filter { !$0.value.isEmpty })
      for (table, kept) in before where !kept.isEmpty {
        // v5 adds its counter to meta: the one row a step adds to a table that was there.
        let still = after[table]?.filter {
          table != "meta" || ($0["name"] as String?) != "commit-count"
        }
        #expect(still == kept, "\(table)")
      }
      let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
      #expect(applied == Array(SchemaVersion.migrations.prefix(version.rawValue + 1)))
      switch version {
      case .v1: try expectCheckValuesFilled(db, legacy)
      case .v2: #expect(try Row.fetchAll(db, sql: "SELECT * FROM import_source").isEmpty)
      case .v3: #expect(try Row.fetchAll(db, sql: "SELECT * FROM lock_policy").isEmpty)
      case .v4:
        #expect(try Schema.commitCount(db) == 0)
        #expect(
          try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'commit-count'") == 0)
      }
    }
    // A store at the new version is whole for keychainctl check.
    expectHealthy(legacy)
  }

  /// v1 → v2 computes the check values of the rows v1 wrote, as v2's code wrote them for new
  /// rows (spelt out in LegacyStore): the index key's check, each collection's keyMAC over its
  /// key record, each item's indexMAC over the digests v1 wrote.
  private func expectCheckValuesFilled(_ db: Database, _ legacy: LegacyStore) throws {
    let check = try Data.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'index-key-check'")
    #expect(check == (try LegacyStore.keyCheck(legacy.indexKey)))
    let metadata = try LegacyStore.metadataKey(legacy.indexKey)
    for row in try Row.fetchAll(db, sql: "SELECT * FROM collection") {
      let parts: [[UInt8]] = [
        Array("collection key record".utf8), Array((row["name"] as String).utf8),
        Array(row["kdfSalt"] as Data), Array("\(row["kdfIterations"] as Int)".utf8),
        Array("\(row["kdfMemoryKiB"] as Int)".utf8), Array("\(row["kdfParallelism"] as Int)".utf8),
        Array(row["wrappedKey"] as Data),
      ]
      #expect(row["keyMAC"] as Data? == (try LegacyStore.mac(metadata, parts)))
    }
    for (id, item) in legacy.written {
      let digests = try Set(
        item.attributes.map { try LegacyStore.digest(legacy.indexKey, $0.key, $0.value) })
      let stored = try Data.fetchOne(
        db, sql: "SELECT indexMAC FROM item WHERE id = ?", arguments: [id])
      #expect(stored == (try LegacyStore.indexMAC(legacy.indexKey, item: id, digests: digests)))
    }
  }
}
