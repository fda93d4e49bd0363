// SPDX-License-Identifier: MIT
//
// Searches whose every pair other items share too: the store probes the pairs to 2, then 16,
// then 257 items to find the rarest (`KeychainStore.probeLimits`). Each regime finds exactly
// the items having every pair, and a replace finds the item with exactly its pairs.

import Foundation
import Testing

@testable import KeychainStore

@Suite struct SharedPairSearchTests {
  @Test func everyProbeLimitFindsExactlyTheItemsWithEveryPair() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    // 300 items: `kind` all of them (past 257), `half` 150, `tenth` 30, `pair` 15.
    var ids: [Int: ItemID] = [:]
    for index in 0..<300 {
      let attributes = [
        "kind": "all", "half": "\(index % 2)", "tenth": "\(index % 10)", "pair": "\(index % 20)",
      ]
      ids[index] = try store.createItem(
        in: "login", label: "\(index)", attributes: attributes, secret: secure("\(index)"),
        replace: false
      ).item
    }
    func found(_ attributes: [String: String]) throws -> Set<ItemID> {
      Set(try store.searchItems(attributes).unlocked)
    }
    func items(where wanted: (Int) -> Bool) -> Set<ItemID> {
      Set((0..<300).filter(wanted).compactMap { ids[$0] })
    }
    // The rarest under 16 (pair: 15 items), beside pairs counted to 16.
    #expect(try found(["kind": "all", "pair": "13", "tenth": "3"]) == items { $0 % 20 == 13 })
    // Under 257 only (tenth: 30 items).
    #expect(try found(["kind": "all", "tenth": "3"]) == items { $0 % 10 == 3 })
    // Every pair counted to 257 (half: 150 items, kind: 300).
    #expect(try found(["kind": "all", "half": "1"]) == items { $0 % 2 == 1 })
    // A pair no item has ends the search at the first probe.
    #expect(try found(["kind": "all", "half": "2"]).isEmpty)
    // A replace finds the one item with exactly its pairs, however common each is.
    let replaced = try store.createItem(
      in: "login", label: "new",
      attributes: ["kind": "all", "half": "1", "tenth": "7", "pair": "17"],
      secret: secure("new"), replace: true)
    #expect(replaced.replaced && replaced.item == ids[297])
  }
}
