// SPDX-License-Identifier: MIT
//
// The digest memo answers repeats without the HMAC, and never with another pair's digest: the
// index holds what the key computes from the UTF-8 bytes, so a memo that answered by `String`
// equality (canonical equivalence) would make a search miss items that are there.

import Foundation
import KeychainCrypto
import Testing

@testable import KeychainStore

@Suite struct DigestMemoTests {
  @Test func aRepeatIsAnsweredWithoutComputingAgain() {
    let memo = DigestMemo()
    var computed = 0
    let make = { () -> Data in
      computed += 1
      return Data([UInt8(computed)])
    }
    let first = memo.digest("application", "chrome", make)
    let again = memo.digest("application", "chrome", make)
    #expect(first == again && computed == 1)
    _ = memo.digest("application", "chromium", make)
    _ = memo.digest("applicatio", "nchrome", make)
    #expect(computed == 3, "a different pair, or the same bytes split elsewhere, is computed")
  }

  @Test func pairsAreTheirBytesNotCanonicallyEquivalentStrings() throws {
    let key = SecureBytes.random(count: 32)
    let keys = try StoreKeys(index: key)
    let hmac = try HMACKey(key)
    func expected(_ name: String, _ value: String) throws -> Data {
      let message = Array(name.utf8) + [0] + Array(value.utf8)
      return Data(try message.withUnsafeBytes { try hmac.authenticationCode([$0]) }.prefix(16))
    }
    let composed = "caf\u{E9}"
    let decomposed = "cafe\u{301}"
    #expect(composed == decomposed, "Swift's String equality is canonical equivalence")
    for _ in 0..<2 {
      #expect(try keys.digest("place", composed) == expected("place", composed))
      #expect(try keys.digest("place", decomposed) == expected("place", decomposed))
    }
    #expect(try expected("place", composed) != expected("place", decomposed))
    #expect(keys.rememberedDigests == 2)
  }

  @Test func theMemoStaysBoundedAndSkipsLongPairs() throws {
    let memo = DigestMemo()
    for index in 0..<(DigestMemo.capacity + 10) {
      _ = memo.digest("n", "\(index)") { Data([1]) }
      #expect(memo.count <= DigestMemo.capacity)
    }
    let before = memo.count
    _ = memo.digest("long", String(repeating: "v", count: DigestMemo.longestPair)) { Data([2]) }
    #expect(memo.count == before)
  }
}
