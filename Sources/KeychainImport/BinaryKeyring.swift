// SPDX-License-Identifier: MIT
//
// gnome-keyring's encrypted keyring format, version 0 (`gkm-secret-binary.c`): a public header
// and a list of item numbers with hashed attributes, then the items under AES-128-CBC with a key
// and IV from iterated SHA-256 of the password and salt. The first 16 decrypted bytes are the MD5
// of the rest: the only check there is (no MAC), which is how a wrong password shows.

import Foundation
import KeychainCrypto

/// A binary keyring whose public part has been read and checked; `open` decrypts the rest.
public struct BinaryKeyring: Sendable {
  public static let magic: [UInt8] = Array("GnomeKeyring\n\r\0\n".utf8)

  public let file: String
  public let label: String
  /// The two header times; gnome-keyring writes them in an order its reader does not share.
  public let headerTimes: (UInt64, UInt64)
  /// Item numbers and types, in the order of the encrypted section.
  public let entries: [(id: UInt32, type: UInt32)]
  let iterations: Int
  let salt: [UInt8]
  let ciphertext: [UInt8]
  /// Where the ciphertext starts in the file, for error offsets.
  let ciphertextOffset: Int

  /// Whether `bytes` start like a binary keyring (of any version).
  public static func looksLikeOne(_ bytes: [UInt8]) -> Bool {
    bytes.count >= magic.count && Array(bytes.prefix(magic.count)) == magic
  }

  /// Reads the header and the public item list; throws `malformed` with the offset, or
  /// `unsupported` for another version.
  public init(parsing bytes: [UInt8], file: String) throws {
    self.file = file
    let parsed = try bytes.withUnsafeBytes { raw in
      var reader = ByteReader(raw, file: file)
      guard Array(raw[try reader.take(16, "the file header")]) == Self.magic else {
        throw reader.damaged("not a gnome-keyring file", at: 0)
      }
      let version = (try reader.byte("the version"), try reader.byte("the version"))
      guard version == (0, 0) else {
        throw KeyringFileError.unsupported(
          file: file, reason: "format version \(version.0).\(version.1); only 0.0 is read")
      }
      guard try reader.byte("the cipher") == 0, try reader.byte("the hash") == 0 else {
        throw KeyringFileError.unsupported(file: file, reason: "a cipher other than AES-128")
      }
      let label = try reader.string("the keyring's name") ?? ""
      let times = (try reader.time("a header time"), try reader.time("a header time"))
      _ = try reader.u32("the lock flags")
      _ = try reader.u32("the lock timeout")
      let iterationsAt = reader.offset
      let iterations = Int(try reader.u32("the iteration count"))
      guard (1...1_000_000).contains(iterations) else {
        throw reader.damaged("\(iterations) key derivation iterations", at: iterationsAt)
      }
      let salt = Array(raw[try reader.take(8, "the salt")])
      _ = try reader.take(16, "the reserved words")
      // Each entry is at least an id, a type and an attribute count.
      let count = try reader.count("items", minimumSize: 12, limit: KeyringLimits.maxItems)
      var entries: [(UInt32, UInt32)] = []
      entries.reserveCapacity(count)
      for _ in 0..<count {
        let id = try reader.u32("an item number")
        let type = try reader.u32("an item type")
        let attributes = try reader.count(
          "hashed attributes", minimumSize: 8, limit: KeyringLimits.maxAttributes)
        for _ in 0..<attributes {
          _ = try reader.string("a hashed attribute's name")
          let kindAt = reader.offset
          switch try reader.u32("a hashed attribute's kind") {
          case 0: _ = try reader.string("a hashed attribute value")
          case 1: _ = try reader.u32("a hashed attribute value")
          case let kind: throw reader.damaged("attribute kind \(kind)", at: kindAt)
          }
        }
        entries.append((id, type))
      }
      let sizeAt = reader.offset
      let size = Int(try reader.u32("the encrypted size"))
      guard size % 16 == 0, size >= 16 else {
        throw reader.damaged("an encrypted size of \(size) bytes", at: sizeAt)
      }
      let start = reader.offset
      let ciphertext = Array(raw[try reader.take(size, "the encrypted items")])
      return (label, times, iterations, salt, entries, ciphertext, start)
    }
    (label, headerTimes, iterations, salt) = (parsed.0, parsed.1, parsed.2, parsed.3)
    (entries, ciphertext, ciphertextOffset) = (parsed.4, parsed.5, parsed.6)
  }

  /// Decrypts and reads every item with `password`; `wrongPassword` when the digest check
  /// fails, `malformed` when the decrypted content is not what the public part promised.
  public func open(password: SecureBytes) throws -> KeyringContents {
    let derived = try KeyDerivation.iteratedSHA256(
      password: password, salt: salt, iterations: iterations)
    let plaintext = try AESCBC.decryptBlocks(
      ciphertext, key: derived.slice(0..<16), iv: derived.slice(16..<32).copyBytes())
    let digestMatches = plaintext.withUnsafeBytes { bytes in
      MD5.hash(UnsafeRawBufferPointer(rebasing: bytes[16...])).elementsEqual(bytes[0..<16])
    }
    guard digestMatches else { throw KeyringFileError.wrongPassword(file: file) }
    var items: [KeyringItem] = []
    items.reserveCapacity(entries.count)
    try plaintext.withUnsafeBytes { bytes in
      var reader = ByteReader(
        UnsafeRawBufferPointer(rebasing: bytes[16...]), file: file, base: ciphertextOffset + 16)
      for entry in entries {
        items.append(try readItem(&reader, entry, plaintext))
      }
      // What follows is the zero padding to a whole block.
      guard reader.remaining < 16 else {
        throw reader.damaged("\(reader.remaining) bytes after the last item")
      }
    }
    let times = [headerTimes.0, headerTimes.1].filter { $0 != 0 }
    return KeyringContents(
      label: label, created: times.min().map(AttributeConversion.date),
      modified: times.max().map(AttributeConversion.date), items: items, encrypted: true)
  }

  private func readItem(
    _ reader: inout ByteReader, _ entry: (id: UInt32, type: UInt32), _ plaintext: SecureBytes
  ) throws -> KeyringItem {
    let label = try reader.string("an item's label") ?? ""
    // The secret stays in the decrypted buffer: a slice of it, never an ordinary copy.
    let secretRange = try reader.byteArray("an item's secret") ?? 0..<0
    let secret = plaintext.slice((secretRange.lowerBound + 16)..<(secretRange.upperBound + 16))
    let created = try reader.time("an item's creation time")
    let modified = try reader.time("an item's modification time")
    _ = try reader.string("a reserved string")
    _ = try reader.take(16, "reserved words")
    let count = try reader.count(
      "attributes", minimumSize: 8, limit: KeyringLimits.maxAttributes)
    var raw: [RawAttribute] = []
    for _ in 0..<count {
      let name = try reader.string("an attribute's name") ?? ""
      let kindAt = reader.offset
      switch try reader.u32("an attribute's kind") {
      case 0: raw.append(RawAttribute(name: name, value: try reader.string("a value") ?? ""))
      case 1: raw.append(RawAttribute(name: name, value: String(try reader.u32("a value"))))
      case let kind: throw reader.damaged("attribute kind \(kind)", at: kindAt)
      }
    }
    let acl = try reader.count("access entries", minimumSize: 20, limit: 1 << 16)
    for _ in 0..<acl {
      _ = try reader.u32("an access entry's rights")
      for what in ["name", "path", "reserved string"] {
        _ = try reader.string("an access entry's \(what)")
      }
      _ = try reader.u32("an access entry's reserved word")
    }
    return KeyringItem(
      id: entry.id, label: label, secret: secret,
      attributes: AttributeConversion.convert(raw, type: entry.type),
      created: AttributeConversion.date(created), modified: AttributeConversion.date(modified),
      accessEntries: acl, recovered: false)
  }
}
