// SPDX-License-Identifier: MIT
//
// The index digests of the attribute pairs searched or written lately. A digest is an HMAC under
// the index key: two SHA-256 blocks behind the key's lock (7,000 instructions under callgrind,
// fewer natively with the CPU's SHA extensions), and a search makes one per pair.
// Clients ask for the same pairs again and again (an application looks up its own item at every
// start, libsecret's tools search by the same schema), and a pair's digest never changes under
// one index key, so a repeat is answered by a hash lookup. In this process's memory only, like
// the metadata cache (attributes are not secret in the Secret Service, and that cache keeps them
// while locked too); bounded in count and in the length of a pair, and emptied when full.

import Foundation
import Synchronization

final class DigestMemo: Sendable {
  /// Pairs kept at most: with `longestPair`, some 400 KB at worst.
  static let capacity = 1_024
  /// A pair longer than this (name and value, in UTF-8 bytes) is digested every time.
  static let longestPair = 256

  /// A pair compared by its UTF-8 bytes, which is what is digested. `String`'s own `==` would
  /// take "é" and "e" + U+0301 as equal, while their digests differ.
  private struct Pair: Hashable {
    let name: String
    let value: String

    static func == (a: Pair, b: Pair) -> Bool {
      a.name.utf8.elementsEqual(b.name.utf8) && a.value.utf8.elementsEqual(b.value.utf8)
    }

    func hash(into hasher: inout Hasher) {
      var name = name
      var value = value
      name.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
      hasher.combine(name.utf8.count)
      value.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
  }

  private let digests = Mutex<[Pair: Data]>([:])

  /// How many pairs are kept now.
  var count: Int { digests.withLock { $0.count } }

  /// The digest of `name` and `value`: the one kept, or `make`'s, then kept.
  func digest(_ name: String, _ value: String, _ make: () throws -> Data) rethrows -> Data {
    guard name.utf8.count + value.utf8.count <= Self.longestPair else { return try make() }
    let pair = Pair(name: name, value: value)
    if let known = digests.withLock({ $0[pair] }) { return known }
    let made = try make()
    digests.withLock { digests in
      if digests.count >= Self.capacity { digests.removeAll(keepingCapacity: true) }
      digests[pair] = made
    }
    return made
  }
}
