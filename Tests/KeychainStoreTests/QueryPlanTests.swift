// SPDX-License-Identifier: MIT
//
// The hot statements start from an index lookup, so that searching, replacing and reading one
// item cost the same at 1k and 100k items. Query plans are stable where timings are not; the
// benchmarks measure the time.

import Foundation
import GRDB
import Testing

@testable import KeychainStore

@Suite struct QueryPlanTests {
  /// The plan's steps, one line each ("SEARCH d USING PRIMARY KEY (digest=?)").
  private func plan(
    _ sql: String, _ arguments: [(any DatabaseValueConvertible)?], in store: KeychainStore
  )
    throws -> [String]
  {
    try store.lookupReader.read { db in
      try Row.fetchAll(
        db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments)
      ).map { $0["detail"] as String }
    }
  }

  @Test func hotStatementsStartFromAnIndex() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    // Two collections with items: the collection filter has something to choose from.
    for name in ["login", "work"] {
      try store.createCollection(name: name, label: name, password: secure("pw"))
      for index in 0..<20 {
        try store.createItem(
          in: name, label: "\(index)", attributes: ["n": "\(index)", "app": "plans"],
          secret: secure("s"), replace: false)
      }
    }
    let digest = Data(count: 16)
    for others in 0...2 {
      let pairs = Array(repeating: digest, count: others + 1)
      for scoped in [false, true] {
        let steps = try plan(
          StoreStatements.search(otherPairs: others, scoped: scoped),
          pairs + (scoped ? [Int64(1)] : []), in: store)
        #expect(steps.first == "SEARCH d USING PRIMARY KEY (digest=?)", "\(steps)")
        #expect(!steps.contains { $0.hasPrefix("SCAN") || $0.contains("TEMP B-TREE") }, "\(steps)")
        #expect(
          steps.filter { $0 == "SEARCH o USING PRIMARY KEY (digest=? AND itemID=?)" }.count
            == others, "\(steps)")
      }
    }
    let counts = try plan(StoreStatements.pairCounts(2), [digest, 2, digest, 2], in: store)
    #expect(
      counts.filter { $0.contains("item_digest USING") && $0.contains("(digest=?)") }.count == 2,
      "\(counts)")
    #expect(!counts.contains { $0.hasPrefix("SCAN item") }, "\(counts)")
    #expect(
      try plan(StoreStatements.pairsOfItem, [1], in: store)
        == ["SEARCH item_digest USING COVERING INDEX item_digest_item (itemID=?)"])
    for statement in [StoreStatements.loadItem, StoreStatements.itemExists] {
      let steps = try plan(statement, [1, "login"], in: store)
      #expect(steps.first == "SEARCH item USING INTEGER PRIMARY KEY (rowid=?)", "\(steps)")
      #expect(!steps.contains { $0.hasPrefix("SCAN") }, "\(steps)")
    }
  }
}
