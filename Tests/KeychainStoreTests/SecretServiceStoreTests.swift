// SPDX-License-Identifier: MIT
//
// The Secret Service semantics of the store: duplicates, replace, subset search across
// collections, locked matches apart, secrets and timestamps.

import Foundation
import GRDB
import KeychainCrypto
import Testing

@testable import KeychainStore

@Suite struct SecretServiceStoreTests {
  @Test func duplicatesReplaceAndSubsetSearch() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let attributes = ["xdg:schema": "org.example.Password", "user": "me", "host": "example.org"]
    let first = try store.createItem(
      in: "login", label: "A", attributes: attributes, secret: secure("1"), replace: false)
    let second = try store.createItem(
      in: "login", label: "B", attributes: attributes, secret: secure("2"), replace: false)
    #expect(first.item != second.item && !second.replaced)
    // replace: the newest item with exactly these attributes takes the new secret and label.
    let third = try store.createItem(
      in: "login", label: "C", attributes: attributes, secret: secure("3"), replace: true)
    #expect(third.replaced && third.item == second.item)
    #expect(try store.secret(of: second.item).secret == secure("3"))
    #expect(try store.itemInfo(second.item).label == "C")
    // A superset of attributes is a different set: no replacement.
    var more = attributes
    more["port"] = "22"
    #expect(
      try !store.createItem(
        in: "login", label: "D", attributes: more, secret: secure("4"), replace: true
      ).replaced)

    #expect(try store.searchItems(["user": "me"]).unlocked.count == 3)
    #expect(try store.searchItems(["user": "me", "port": "22"]).unlocked.count == 1)
    #expect(try store.searchItems(["user": "ME"]).unlocked.isEmpty)
    #expect(try store.searchItems(["user": "me", "nothing": ""]).unlocked.isEmpty)
    #expect(try store.searchItems([:]).unlocked.count == 3)
    // Newest first: libsecret reads the first hit.
    #expect(
      try store.searchItems(["user": "me"]).unlocked.dropFirst() == [second.item, first.item])
  }

  /// Searches' answers are kept until the next write (SearchCache, which keeps answers of 64
  /// items or more): each kind of change shows in the very next search, and a lock in its split.
  @Test func aSearchSeesEveryChangeMadeBeforeIt() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    // Enough items for their answer to be kept.
    let many = Set(
      try store.importItems(
        (0..<SearchCache.smallestKept).map {
          ImportedItem(label: "\($0)", attributes: ["k": "v", "n": "\($0)"], secret: secure("s"))
        }, into: "login"))
    func found(_ collection: String? = nil) throws -> Set<ItemID> {
      Set(try store.searchItems(["k": "v"], in: collection).unlocked)
    }
    #expect(try found() == many && found("login") == many)
    #expect(try found() == many)  // now from the kept answer
    let a = try store.createItem(
      in: "login", label: "a", attributes: ["k": "v"], secret: secure("x"), replace: false
    ).item
    #expect(try found() == many.union([a]) && found("login") == many.union([a]))
    try store.setAttributes(["k": "w"], of: a)
    #expect(try found() == many && found("login") == many)
    try store.setAttributes(["k": "v"], of: a)
    #expect(try found() == many.union([a]))
    let b = try store.createItem(
      in: "session", label: "b", attributes: ["k": "v"], secret: secure("y"), replace: false
    ).item
    #expect(try found() == many.union([a, b]) && found("session") == [b])
    try store.lock("login")
    #expect(try found() == [b] && store.searchItems(["k": "v"]).locked.count == many.count + 1)
    try store.unlock("login", password: secure("pw"))
    #expect(try found() == many.union([a, b]))
    try store.deleteItem(b)
    #expect(try found() == many.union([a]) && found("session").isEmpty)
    let merged = try store.merge(
      [ImportedItem(label: "c", attributes: ["k": "v", "n": "new"], secret: secure("z"))],
      into: "login",
      source: ImportSource(
        path: "/x", collection: "login", device: 0, inode: 0, size: 0, modifiedNanoseconds: 0,
        sha256: []))
    #expect(try found() == many.union([a]).union(merged.added))
    try store.deleteCollection("login")
    #expect(try found().isEmpty)
  }

  @Test func lockedMatchesAreReportedApartAndUnreadable() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let other = try store.createCollection(label: "Work", password: secure("work"))
    let a = try store.createItem(
      in: "login", label: "a", attributes: ["k": "v"], secret: secure("x"), replace: false)
    let b = try store.createItem(
      in: other.name, label: "b", attributes: ["k": "v"], secret: secure("y"), replace: false)
    try store.lock(other.name)
    let found = try store.searchItems(["k": "v"])
    #expect(found.unlocked == [a.item] && found.locked == [b.item])
    #expect(throws: StoreError.locked(collection: other.name)) { try store.secret(of: b.item) }
    #expect(throws: StoreError.locked(collection: other.name)) {
      try store.setLabel("z", ofItem: b.item)
    }
    #expect(throws: StoreError.locked(collection: other.name)) {
      try store.createItem(
        in: other.name, label: "c", attributes: [:], secret: secure("z"), replace: false)
    }
    #expect(try store.items(in: other.name) == [b.item])
    #expect(
      try store.collection(other.name).isLocked && store.collection(other.name).label == "Work")
    try store.unlock(other.name, password: secure("work"))
    #expect(try store.secret(of: b.item).secret == secure("y"))
  }

  @Test func secretsLabelsAttributesAndTimestamps() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let binary = SecureBytes(copying: [0, 255, 0, 1] + Array(repeating: 7, count: 1 << 20))
    let (item, _) = try store.createItem(
      in: "login", label: "ünïcode ✓", attributes: ["a": "1"], secret: binary,
      contentType: "application/octet-stream", replace: false)
    let created = try store.itemInfo(item).created
    fixture.advance(seconds: 60)
    try store.setSecret(secure(""), contentType: "text/plain", of: item)
    try store.setAttributes(["b": "2"], of: item)
    try store.setLabel("renamed", ofItem: item)
    let info = try store.itemInfo(item)
    #expect(
      info.label == "renamed" && info.attributes == ["b": "2"] && info.contentType == "text/plain")
    #expect(info.created == created && info.modified == created.addingTimeInterval(60))
    #expect(try store.secret(of: item).secret.count == 0)
    #expect(try store.searchItems(["a": "1"]).unlocked.isEmpty)
    #expect(try store.searchItems(["b": "2"]).unlocked == [item])
    try store.deleteItem(item)
    #expect(try !store.exists(item))
    #expect(throws: StoreError.noSuchItem) { try store.deleteItem(item) }
  }

  @Test func sessionCollectionLivesInMemoryOnly() throws {
    let fixture = try StoreFixture()
    do {
      let store = try fixture.open()
      #expect(try store.collections().map(\.name) == ["session"])
      #expect(try store.alias("session") == "session")
      try store.createItem(
        in: "session", label: "tmp", attributes: ["s": "1"], secret: secure("MEMORYMARKER"),
        replace: false)
      #expect(try store.searchItems(["s": "1"]).unlocked.count == 1)
      try store.lock("session")
      #expect(!store.isLocked("session"))
    }
    for (name, bytes) in try fixture.allFileBytes() {
      #expect(!bytes.contains(Array("MEMORYMARKER".utf8)), "\(name)")
    }
    #expect(try fixture.open().searchItems(["s": "1"]).unlocked.isEmpty)
  }

  @Test func theSessionDatabaseHasTheFilesSchema() throws {
    let store = try StoreFixture().open()
    func schema(_ database: some DatabaseReader) throws -> [[String?]] {
      try database.read { db in
        let objects = try Row.fetchAll(
          db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        ).map { row in [row["type"], row["name"], row["tbl_name"], row["sql"]] as [String?] }
        let migrations = try String.fetchAll(
          db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
        let meta = try String.fetchAll(db, sql: "SELECT name FROM meta ORDER BY name")
        return objects + [migrations, meta]
      }
    }
    #expect(try schema(store.memory) == schema(store.persistent))
    #expect(try store.memory.read { try Schema.migrator(store.keys).hasCompletedMigrations($0) })
  }

  @Test func aliases() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    #expect(try store.alias("default") == nil)
    try store.setAlias("default", to: "login")
    #expect(try store.alias("default") == "login")
    #expect(try fixture.open().alias("default") == "login")
    try store.setAlias("default", to: nil)
    #expect(try store.alias("default") == nil)
    #expect(throws: StoreError.self) { try store.setAlias("default", to: "nope") }
    #expect(throws: StoreError.self) { try store.setAlias("session", to: "login") }
  }

  @Test func limitsAreEnforcedWithoutWritingAnything() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let huge = SecureBytes(count: StoreLimits.maxSecretBytes + 1) {
      $0.initializeMemory(as: UInt8.self, repeating: 1)
    }
    #expect(throws: StoreError.self) {
      try store.createItem(in: "login", label: "x", attributes: [:], secret: huge, replace: false)
    }
    let many = Dictionary(
      uniqueKeysWithValues: (0...StoreLimits.maxAttributes).map { ("k\($0)", "v") })
    #expect(throws: StoreError.self) {
      try store.createItem(
        in: "login", label: "x", attributes: many, secret: secure("s"), replace: false)
    }
    let long = String(repeating: "x", count: StoreLimits.maxTextBytes + 1)
    #expect(throws: StoreError.self) {
      try store.createItem(
        in: "login", label: "x", attributes: ["k": long], secret: secure("s"), replace: false)
    }
    #expect(try store.items(in: "login").isEmpty)
  }
}

@Suite struct ImportTests {
  @Test func importIsAllOrNothing() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "L", password: secure("pw"))
    let good = (0..<100).map {
      ImportedItem(label: "i\($0)", attributes: ["n": "\($0)"], secret: secure("s\($0)"))
    }
    let ids = try store.importItems(good, into: "login")
    #expect(ids.count == 100)
    #expect(try store.searchItems(["n": "42"]).unlocked == [ids[42]])
    #expect(try store.secret(of: ids[42]).secret == secure("s42"))
    let bad = [
      ImportedItem(label: "ok", attributes: [:], secret: secure("x")),
      ImportedItem(
        label: String(repeating: "x", count: StoreLimits.maxTextBytes + 1), attributes: [:],
        secret: secure("x")),
    ]
    #expect(throws: StoreError.self) { try store.importItems(bad, into: "login") }
    #expect(try store.items(in: "login").count == 100)
  }
}
