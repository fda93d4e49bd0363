// SPDX-License-Identifier: MIT
//
// The hot reads step SQLite statements by hand (`RawRead`) and skip the existence query for items
// already seen (`KnownItems`). Both are shortcuts past GRDB's bookkeeping, so both are checked
// here for what they must never do: leave a statement mid-step (its read transaction would pin a
// WAL snapshot and stall checkpoints), or call an item that is gone present.

import Foundation
import GRDB
import GRDBSQLite
import KeychainCrypto
import Testing

@testable import KeychainStore

@Suite struct HotReadTests {
  /// The SQL of every statement of the lookup connection that is stepped but not reset.
  private func busyStatements(_ store: KeychainStore) -> [String] {
    store.lookupReader.unsafeRead { db in
      var busy: [String] = []
      var statement = sqlite3_next_stmt(db.sqliteConnection, nil)
      while let current = statement {
        if sqlite3_stmt_busy(current) != 0 { busy.append(String(cString: sqlite3_sql(current))) }
        statement = sqlite3_next_stmt(db.sqliteConnection, current)
      }
      return busy
    }
  }

  @Test func hotReadsLeaveNoStatementMidStep() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    try store.setAlias("default", to: "login")
    var items: [ItemID] = []
    for index in 0..<3 {
      items.append(
        try store.createItem(
          in: "login", label: "\(index)", attributes: ["app": "hot", "n": "\(index % 2)"],
          secret: secure("s\(index)"), replace: false
        ).item)
    }
    // Reads whose statements have more rows than they take: the first row answers them.
    #expect(try store.searchItems(["app": "hot"]).unlocked.count == 3)
    #expect(try store.searchItems(["app": "hot", "n": "0"], in: "login").unlocked.count == 2)
    #expect(try store.searchItems(["app": "none"]).unlocked.isEmpty)
    #expect(try store.secret(of: items[1]).secret.withUnsafeBytes { Array($0) } == Array("s1".utf8))
    #expect(try store.alias("default") == "login")
    #expect(try store.hasCollection("login"))
    #expect(try !store.exists(ItemID(collection: "login", id: 999)))
    #expect(throws: StoreError.self) { try store.searchItems(["app": "hot"], in: "missing") }
    #expect(busyStatements(store) == [])
  }

  @Test func aDeletedItemIsGoneAtOnceThoughItWasKnown() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let kept = try store.createItem(
      in: "login", label: "kept", attributes: ["k": "1"], secret: secure("a"), replace: false
    ).item
    let deleted = try store.createItem(
      in: "login", label: "deleted", attributes: ["k": "2"], secret: secure("b"), replace: false
    ).item
    #expect(try store.exists(kept) && store.exists(deleted))
    #expect(store.knownItems.contains(deleted))
    try store.deleteItem(deleted)
    #expect(try !store.exists(deleted))
    #expect(try store.exists(kept))
    try store.deleteCollection("login")
    #expect(try !store.exists(kept))
  }

  @Test func aLookupThatRacedADeletionIsNotRemembered() {
    let known = KnownItems()
    let item = ItemID(collection: "login", id: 7)
    // A lookup starts, sees the item; the item is deleted before the lookup records it.
    let generation = known.generation
    known.forget(item)
    known.remember(item, seenIn: generation)
    #expect(!known.contains(item))
    known.remember(item, seenIn: known.generation)
    #expect(known.contains(item))
    known.forgetCollection("login")
    #expect(!known.contains(item))
  }
}
