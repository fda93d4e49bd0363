// SPDX-License-Identifier: MIT
//
// The keys that live outside the database (index.key, and what is derived from it), and the
// checks made with them. They work while collections are locked: searching, listing labels, and
// telling a damaged record from a wrong password.

import Foundation
import GRDB
import KeychainCrypto

struct StoreKeys: Sendable {
  /// Keys the attribute digests and the records that check the index (index.key itself),
  /// kept open: a search or a write makes several of these MACs.
  let index: HMACKey
  /// Seals collection labels.
  let metadata: SecureBytes
  /// Checks collection key records (keyed with `metadata`).
  let metadataMAC: HMACKey
  /// The digests of pairs met lately: `index` is never re-keyed, so they stay right.
  private let memo = DigestMemo()

  init(index: SecureBytes) throws {
    self.index = try HMACKey(index)
    metadata = try HKDF.deriveKey(
      inputKey: index, info: Array("keychain-linux collection labels".utf8), length: 32)
    metadataMAC = try HMACKey(metadata)
  }

  /// 16 bytes of HMAC-SHA256 under `key` over `parts`, each prefixed by its length so that no
  /// two different lists of parts give the same input.
  private static func mac(_ key: HMACKey, _ parts: [[UInt8]]) throws -> Data {
    var message: [UInt8] = []
    for part in parts {
      withUnsafeBytes(of: UInt32(part.count).bigEndian) { message += $0 }
      message += part
    }
    let code = try message.withUnsafeBytes { try key.authenticationCode([$0]) }
    return Data(code.prefix(16))
  }

  /// The index digest of one attribute pair: HMAC(index key, name NUL value), 16 bytes.
  func digest(_ name: String, _ value: String) throws -> Data {
    try memo.digest(name, value) {
      var name = name
      var value = value
      let code = try name.withUTF8 { n in
        try value.withUTF8 { v in
          try withUnsafeBytes(of: UInt8(0)) { nul in
            try index.authenticationCode(
              [UnsafeRawBufferPointer(n), nul, UnsafeRawBufferPointer(v)])
          }
        }
      }
      return Data(code.prefix(16))
    }
  }

  /// How many pairs' digests are kept (for tests).
  var rememberedDigests: Int { memo.count }

  /// Stored in the database when it is made: tells whether index.key is this database's key.
  func keyCheck() throws -> Data {
    try Self.mac(index, [Array("keychain-linux index key check".utf8)])
  }

  /// Checks a collection's key record (name, KDF parameters, wrapped key) without the password,
  /// so that a damaged record is reported as damage and never as a wrong password.
  func collectionKeyMAC(
    name: String, salt: Data, parameters: Argon2Parameters, wrappedKey: Data
  ) throws -> Data {
    let numbers = [parameters.iterations, parameters.memoryKiB, parameters.parallelism]
    return try Self.mac(
      metadataMAC,
      [Array("collection key record".utf8), Array(name.utf8), Array(salt)]
        + numbers.map { Array(String($0).utf8) } + [Array(wrappedKey)])
  }

  /// Checks a key slot's record (see KeySlots.swift) as `collectionKeyMAC` checks the
  /// password's: a damaged slot is told apart from a wrong key.
  func slotMAC(
    collection: String, kind: String, salt: Data, wrappedKey: Data, sealed: Data?,
    policy: String?
  ) throws -> Data {
    try Self.mac(
      metadataMAC,
      [
        Array("key slot record".utf8), Array(collection.utf8), Array(kind.utf8), Array(salt),
        Array(wrappedKey), Array(sealed ?? Data()), Array((policy ?? "").utf8),
      ])
  }

  /// Checks an item's rows in the attribute index without decrypting the item: computed over
  /// its distinct digests in order, so a lost, changed or extra row shows.
  func indexMAC(item: Int64, digests: some Sequence<Data>) throws -> Data {
    try indexMAC(
      item: item, sortedDigests: Set(digests).sorted(by: StoreKeys.bytesPrecede))
  }

  /// `indexMAC` of digests already distinct and in byte order.
  func indexMAC(item: Int64, sortedDigests: [Data]) throws -> Data {
    try Self.mac(
      index, [Array("item index".utf8), Array(String(item).utf8)] + sortedDigests.map { Array($0) })
  }
}

extension StoreKeys {
  /// `collectionKeyMAC` of a row with the collection's name, KDF and key columns.
  func collectionKeyMAC(_ row: Row) throws -> Data {
    try collectionKeyMAC(
      name: row["name"], salt: row["kdfSalt"],
      parameters: Argon2Parameters(
        iterations: row["kdfIterations"], memoryKiB: row["kdfMemoryKiB"],
        parallelism: row["kdfParallelism"]),
      wrappedKey: row["wrappedKey"])
  }
}

extension StoreKeys {
  /// Byte order of two digests, by `memcmp`: the order `indexMAC` and the search cache's keys
  /// sort them in. (`lexicographicallyPrecedes` walks `Data` a byte at a time through its
  /// iterator: 3,500 instructions a search, measured, for two or three digests.)
  static func bytesPrecede(_ first: Data, _ second: Data) -> Bool {
    first.withUnsafeBytes { a in
      second.withUnsafeBytes { b in
        let common = min(a.count, b.count)
        let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
        return order < 0 || (order == 0 && a.count < b.count)
      }
    }
  }
}
