// SPDX-License-Identifier: MIT
//
// The keyring file format "v1" that oo7 and libsecret's file backend write (and every Flatpak
// app through either): gnome-keyring's magic, version bytes 1 0, then one GVariant
// `(u ay u t u a(a{say}ay))`: salt size, salt, PBKDF2 iterations, the file's time, a usage
// counter, and the items. Each item is an index of attribute names with the HMAC of their value
// and one blob, AES-128-CBC(plaintext) ‖ IV ‖ HMAC-SHA256(ciphertext ‖ IV), under the 16-byte
// PBKDF2-HMAC-SHA256 key of the password; the plaintext is `(a{ss} s t t ay)`: attributes,
// label, created, modified, secret. oo7 also writes an unencrypted flavour (for a collection
// with an empty password) whose blob is that plaintext and whose index holds the values.
//
// Parsing is strict and done before any key is derived; the iteration count is capped first.
// With a key, every item's MAC is checked before anything is decrypted: an item whose MAC fails
// was written under another password (libsecret never checks the password it writes with, so
// files with items under two keys are common) or is damaged; an item whose MAC holds but whose
// content does not parse is damage. The layout is libsecret's (`secret-file-collection.c`),
// read field by field in `init(parsing:file:)` below.

import Foundation
import KeychainCrypto

/// A v1 keyring whose framing has been read and checked; `open` decrypts its items.
public struct V1Keyring: Sendable {
  /// The highest PBKDF2 iteration count accepted: writers use 100,000, and a crafted 2³²−1
  /// would cost about half an hour of CPU for each password tried.
  public static let maxIterations: UInt32 = 10_000_000
  /// The longest salt accepted; writers use 32 bytes.
  static let maxSalt = 1024
  /// Where the GVariant starts: after the magic and the two version bytes.
  static let bodyOffset = 18

  /// One item as the file keeps it.
  struct Sealed: Sendable {
    /// Attribute names and the HMAC of their value (or the value itself, unencrypted).
    var index: [(name: String, value: [UInt8])]
    var blob: [UInt8]
    /// Where the blob starts in the file, for error offsets.
    var blobOffset: Int
  }

  public let file: String
  let salt: [UInt8]
  let iterations: UInt32
  let items: [Sealed]

  /// The number of items in the file.
  public var itemCount: Int { items.count }

  /// Whether `bytes` are a keyring of version 1 (of any minor version).
  public static func looksLikeOne(_ bytes: [UInt8]) -> Bool {
    BinaryKeyring.looksLikeOne(bytes) && bytes.count > 17 && bytes[16] == 1
  }

  /// Reads and checks the framing; throws `malformed` with the byte, `unsupported` for another
  /// version, before anything is derived.
  public init(parsing bytes: [UInt8], file: String) throws {
    self.file = file
    guard BinaryKeyring.looksLikeOne(bytes), bytes.count >= Self.bodyOffset else {
      throw KeyringFileError.malformed(
        file: file, position: "byte 0", reason: "not a keyring file (no GnomeKeyring magic)")
    }
    guard bytes[16] == 1, bytes[17] == 0 else {
      throw KeyringFileError.unsupported(
        file: file, reason: "format version \(bytes[16]).\(bytes[17]); only 1.0 is read here")
    }
    let parsed = try bytes.withUnsafeBytes { raw in
      let body = GVariantValue(
        bytes: raw, range: Self.bodyOffset..<raw.count, file: file, base: 0)
      let header = try body.members(
        [
          .fixed(size: 4, alignment: 4), .variable(alignment: 1), .fixed(size: 4, alignment: 4),
          .fixed(size: 8, alignment: 8), .fixed(size: 4, alignment: 4), .variable(alignment: 1),
        ], "the keyring's header")
      let saltSize = try header[0].u32("the salt size")
      let salt = Array(header[1].byteArray)
      guard salt.count <= Self.maxSalt, saltSize == salt.count else {
        throw header[0].damaged("the salt size says \(saltSize) but the salt has \(salt.count)")
      }
      let iterations = try header[2].u32("the iteration count")
      guard (1...Self.maxIterations).contains(iterations) else {
        throw header[2].damaged(
          "\(iterations) key derivation iterations (accepted: 1 to \(Self.maxIterations))")
      }
      let items = try header[5].elements(
        alignment: 1, limit: KeyringLimits.maxItems, "the item list"
      ).enumerated().map { index, item in
        try Self.sealed(item, index)
      }
      return (salt, iterations, items)
    }
    (salt, iterations, items) = parsed
  }

  private static func sealed(_ item: GVariantValue, _ index: Int) throws -> Sealed {
    let what = "item \(index)"
    let parts = try item.members(
      [.variable(alignment: 1), .variable(alignment: 1)], what)
    let entries = try parts[0].elements(
      alignment: 1, limit: KeyringLimits.maxAttributes, "\(what)'s index")
    var index: [(String, [UInt8])] = []
    index.reserveCapacity(entries.count)
    for entry in entries {
      let pair = try entry.members(
        [.variable(alignment: 1), .variable(alignment: 1)], "\(what)'s index")
      index.append((try pair[0].string("an attribute name"), Array(pair[1].byteArray)))
    }
    return Sealed(
      index: index, blob: Array(parts[1].byteArray), blobOffset: parts[1].range.lowerBound)
  }

  /// Opens the items `password` opens (of those at `positions`, if given), and names those it
  /// does not. Throws `wrongPassword` when it opens none of them (an empty file opens with any
  /// password, as it does in oo7).
  public func open(password: SecureBytes, positions: [Int]? = nil) throws -> V1Contents {
    let key = try KeyDerivation.pbkdf2SHA256(
      password: password, salt: salt, iterations: UInt(iterations), length: 16)
    let mac = try HMACKey(key)
    var contents = V1Contents(items: [], unopened: [], damaged: [], encrypted: true)
    for index in positions ?? Array(items.indices) where items.indices.contains(index) {
      let item = items[index]
      let blob = item.blob
      // C ‖ IV ‖ T, with C whole blocks and at least one.
      guard blob.count >= 64, (blob.count - 48) % 16 == 0 else {
        contents.unopened.append(index)
        continue
      }
      let macAt = blob.count - 32
      let expected = try blob.withUnsafeBytes {
        try mac.authenticationCode([UnsafeRawBufferPointer(rebasing: $0[..<macAt])])
      }
      guard Self.constantTimeEqual(expected, blob[macAt...]) else {
        contents.unopened.append(index)
        continue
      }
      do {
        let plaintext = try AESCBC.decrypt(
          Array(blob[..<(macAt - 16)]), key: key, iv: Array(blob[(macAt - 16)..<macAt]))
        var opened = try plaintext.withUnsafeBytes {
          try V1Item.parse($0, plaintext, file: file, base: item.blobOffset, index: index)
        }
        opened.indexMatches = try indexMatches(item, opened.storedAttributes, mac)
        contents.items.append(opened)
      } catch CryptoError.badPadding {
        contents.damaged.append((index, "its padding is wrong although its MAC holds"))
      } catch let error as KeyringFileError {
        contents.damaged.append((index, error.description))
      }
    }
    guard !contents.items.isEmpty || !contents.damaged.isEmpty || contents.unopened.isEmpty else {
      throw KeyringFileError.wrongPassword(file: file)
    }
    return contents
  }

  /// The items of oo7's unencrypted flavour, if the file is one: every blob is a plaintext item
  /// and every index value is that item's attribute value itself. Nil otherwise (or if empty).
  public func openUnencrypted() -> V1Contents? {
    guard !items.isEmpty else { return nil }
    var contents = V1Contents(items: [], unopened: [], damaged: [], encrypted: false)
    for (index, item) in items.enumerated() {
      let secure = SecureBytes(copying: item.blob)
      guard
        let opened = try? secure.withUnsafeBytes({
          try V1Item.parse($0, secure, file: file, base: item.blobOffset, index: index)
        }),
        item.index.count == opened.storedAttributes.count,
        item.index.allSatisfy({
          opened.storedAttributes[$0.name].map { Array($0.utf8) } == $0.value
        })
      else { return nil }
      contents.items.append(opened)
    }
    return contents
  }

  /// Whether the index's MACs are those of the decrypted attributes (an index is not covered by
  /// the item's MAC: a mismatch is reported, and keychaind re-indexes from the content anyway).
  private func indexMatches(_ item: Sealed, _ attributes: [String: String], _ mac: HMACKey)
    throws -> Bool
  {
    guard item.index.count == attributes.count else { return false }
    for entry in item.index {
      guard let value = attributes[entry.name] else { return false }
      let code = try Array(value.utf8).withUnsafeBytes { try mac.authenticationCode([$0]) }
      guard Self.constantTimeEqual(code, entry.value[...]) else { return false }
    }
    return true
  }

  static func constantTimeEqual(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a, b) { difference |= x ^ y }
    return difference == 0
  }
}

/// What a password (or none, for the unencrypted flavour) opens of a v1 keyring.
public struct V1Contents: Sendable {
  public var items: [V1Item]
  /// Items (by position in the file, from 0) whose MAC fails: another password, or damage.
  public var unopened: [Int]
  /// Items whose MAC holds but whose content cannot be read: a writer's bug or damage.
  public var damaged: [(index: Int, reason: String)]
  public var encrypted: Bool
}
