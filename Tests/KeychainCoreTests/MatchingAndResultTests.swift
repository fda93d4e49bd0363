// SPDX-License-Identifier: MIT

import Foundation
import KeychainCore
import Testing

@Suite struct MatchingAndResultTests {
  let item: [AttributeKey: AttributeValue] = [
    .server: .string("WWW.Example.com"), .account: .string("alice"), .port: .number(443),
  ]

  @Test(arguments: [
    ([AttributeKey.server: AttributeValue.string("WWW.Example.com")], false, true),
    ([.server: .string("www.example.com")], false, false),
    ([.server: .string("www.example.com")], true, true),
    ([.server: .string("www.example.com"), .port: .number(443)], true, true),
    ([.server: .string("WWW.Example.com"), .port: .number(80)], false, false),
    ([.path: .string("/")], false, false),
    ([:], false, true),
  ])
  func queriesMatchSubsets(
    attributes: [AttributeKey: AttributeValue], insensitive: Bool, expected: Bool
  ) {
    var query = ItemQuery(itemClass: .internetPassword)
    query.attributes = attributes
    query.caseInsensitive = insensitive
    #expect(query.matches(item) == expected)
  }

  func found(_ n: Int) -> [FoundItem] {
    (0..<n).map {
      FoundItem(
        itemClass: .genericPassword, attributes: [.account: .string("a\($0)")],
        data: [UInt8($0)], persistentReference: [9, UInt8($0)])
    }
  }

  func query(_ returns: ReturnOptions, _ limit: MatchLimit) -> ItemQuery {
    var q = ItemQuery(itemClass: .genericPassword)
    q.returns = returns
    q.matchLimit = limit
    return q
  }

  @Test func resultShapesFollowReturnKeysAndLimits() throws {
    let items = found(3)
    #expect(ResultShaper.result(for: items, query: query([], .one)) { _ in nil } == nil)
    #expect(
      ResultShaper.result(for: items, query: query(.data, .one)) { _ in nil } as? Data == Data([0]))
    let attributes = try #require(
      ResultShaper.result(for: items, query: query(.attributes, .one)) { _ in nil }
        as? [String: Any])
    #expect(attributes["acct"] as? String == "a0" && attributes["class"] as? String == "genp")
    let both = try #require(
      ResultShaper.result(for: items, query: query([.attributes, .data], .one)) { _ in nil }
        as? [String: Any])
    #expect(both["v_Data"] as? Data == Data([0]) && both["acct"] as? String == "a0")
    let all = try #require(
      ResultShaper.result(for: items, query: query(.data, .all)) { _ in nil } as? [Any])
    #expect(all.compactMap { $0 as? Data } == [Data([0]), Data([1]), Data([2])])
    let two = try #require(
      ResultShaper.result(for: items, query: query([.data, .persistentReference], .count(2))) { _ in
        nil
      } as? [Any])
    #expect(two.count == 2)
    #expect((two[1] as? [String: Any])?["v_PersistentRef"] as? Data == Data([9, 1]))
    let refs = ResultShaper.result(for: items, query: query(.reference, .one)) {
      "ref-\($0.attributes[.account]!)"
    }
    #expect(refs as? String == "ref-\"a0\"")
  }

  @Test func duplicateQueryUsesThePrimaryKeyOnly() {
    let new = NewItem(
      itemClass: .genericPassword,
      attributes: [.service: .string("s"), .account: .string("a"), .label: .string("L")])
    #expect(new.duplicateQuery.attributes == [.service: .string("s"), .account: .string("a")])
    #expect(new.duplicateQuery.matchLimit == .all)
  }
}
