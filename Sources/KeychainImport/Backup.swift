// SPDX-License-Identifier: MIT
//
// keychaind's encrypted backup: chosen collections, every field of every item, sealed in one
// file with a passphrase. Layout (integers big-endian):
//
//   0   16  magic "KEYCHAIN-BACKUP\n"
//   16  1   version = 1
//   17  12  Argon2id t, m (KiB), p: three u32
//   29  16  salt
//   45  …   AES-256-GCM (nonce, ciphertext, tag as AESGCM.seal lays them out) of the records,
//           the key Argon2id(passphrase, salt), the first 45 bytes as associated data
//
// The records: u32 collection count; per collection its name and label (u32 length and UTF-8),
// u32 item count; per item u32 number, label, content type, u64 created, u64 modified (seconds
// since 1970), u32 attribute count, each attribute's name and value, and the secret (u32 length
// and bytes). The records are built and read in locked memory. Any change to the file fails
// authentication: a tampered backup is refused whole, like a wrong passphrase.

import Foundation
import KeychainCrypto

/// One collection of a backup.
public struct BackupCollection: Sendable {
  /// Its name: the last element of its D-Bus path (`login`).
  public var name: String
  public var label: String
  public var items: [BackupItem]

  public init(name: String, label: String, items: [BackupItem]) {
    self.name = name
    self.label = label
    self.items = items
  }
}

/// One item of a backup, whole.
public struct BackupItem: Sendable {
  /// The last element of its D-Bus path.
  public var number: UInt32
  public var label: String
  public var contentType: String
  public var created: Date
  public var modified: Date
  public var attributes: [String: String]
  public var secret: SecureBytes

  public init(
    number: UInt32, label: String, contentType: String, created: Date, modified: Date,
    attributes: [String: String], secret: SecureBytes
  ) {
    self.number = number
    self.label = label
    self.contentType = contentType
    self.created = created
    self.modified = modified
    self.attributes = attributes
    self.secret = secret
  }
}

public enum Backup {
  static let magic = Array("KEYCHAIN-BACKUP\n".utf8)
  static let version: UInt8 = 1
  static let headerSize = 45

  /// The sealed file for `collections` under `passphrase`.
  public static func seal(
    _ collections: [BackupCollection], passphrase: SecureBytes,
    parameters: Argon2Parameters = .recommended
  ) throws -> [UInt8] {
    let salt = SecureBytes.random(count: 16).copyBytes()
    var header = magic + [version]
    for word in [parameters.iterations, parameters.memoryKiB, parameters.parallelism] {
      header += withUnsafeBytes(of: word.bigEndian, Array.init)
    }
    header += salt
    let key = try KeyDerivation.argon2id(
      password: passphrase, salt: salt, parameters: parameters)
    return header + (try AESGCM.seal(records(collections), key: key, associatedData: header))
  }

  /// The collections in a backup file; `wrongPassword` for a wrong passphrase or any change to
  /// the file, `malformed` or `unsupported` for what is not a backup of this version.
  public static func open(_ bytes: [UInt8], passphrase: SecureBytes, file: String) throws
    -> [BackupCollection]
  {
    guard bytes.count > headerSize, Array(bytes.prefix(16)) == magic else {
      throw KeyringFileError.malformed(
        file: file, position: "byte 0", reason: "not a keychaind backup")
    }
    guard bytes[16] == version else {
      throw KeyringFileError.unsupported(file: file, reason: "backup version \(bytes[16])")
    }
    let words = (0..<3).map { index in
      bytes[(17 + 4 * index)..<(21 + 4 * index)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
    let parameters = Argon2Parameters(
      iterations: words[0], memoryKiB: words[1], parallelism: words[2])
    // Bounds before the derivation: a crafted header must not make it allocate without limit.
    guard (1...16).contains(parameters.iterations), (8...(1 << 20)).contains(parameters.memoryKiB),
      (1...16).contains(parameters.parallelism)
    else {
      throw KeyringFileError.malformed(
        file: file, position: "byte 17", reason: "key derivation parameters out of range")
    }
    let header = Array(bytes.prefix(headerSize))
    let key = try KeyDerivation.argon2id(
      password: passphrase, salt: Array(bytes[29..<45]), parameters: parameters)
    let records: SecureBytes
    do {
      records = try AESGCM.open(bytes[headerSize...], key: key, associatedData: header)
    } catch CryptoError.authenticationFailed {
      throw KeyringFileError.wrongPassword(file: file)
    }
    return try read(records, file: file)
  }

  /// The records in locked memory: sized first, then written in place.
  static func records(_ collections: [BackupCollection]) -> SecureBytes {
    func text(_ string: String) -> Int { 4 + string.utf8.count }
    var size = 4
    for collection in collections {
      size += text(collection.name) + text(collection.label) + 4
      for item in collection.items {
        size += 4 + text(item.label) + text(item.contentType) + 16 + 4 + 4 + item.secret.count
        size += item.attributes.reduce(0) { $0 + text($1.key) + text($1.value) }
      }
    }
    return SecureBytes(count: size) { out in
      var writer = RecordWriter(out: out)
      writer.u32(collections.count)
      for collection in collections {
        writer.text(collection.name)
        writer.text(collection.label)
        writer.u32(collection.items.count)
        for item in collection.items {
          writer.u32(Int(item.number))
          writer.text(item.label)
          writer.text(item.contentType)
          writer.u64(UInt64(max(0, item.created.timeIntervalSince1970)))
          writer.u64(UInt64(max(0, item.modified.timeIntervalSince1970)))
          writer.u32(item.attributes.count)
          for (name, value) in item.attributes.sorted(by: { $0.key < $1.key }) {
            writer.text(name)
            writer.text(value)
          }
          item.secret.withUnsafeBytes { writer.bytes($0) }
        }
      }
    }
  }

  static func read(_ records: SecureBytes, file: String) throws -> [BackupCollection] {
    try records.withUnsafeBytes { raw in
      var reader = ByteReader(raw, file: file, base: headerSize)
      var collections: [BackupCollection] = []
      let count = try reader.count("collections", minimumSize: 12, limit: 10_000)
      for _ in 0..<count {
        let name = try reader.string("a collection's name") ?? ""
        let label = try reader.string("a collection's label") ?? ""
        let itemCount = try reader.count(
          "items", minimumSize: 36, limit: KeyringLimits.maxItems)
        var items: [BackupItem] = []
        items.reserveCapacity(itemCount)
        for _ in 0..<itemCount {
          let number = try reader.u32("an item number")
          let label = try reader.string("an item's label") ?? ""
          let contentType = try reader.string("a content type") ?? ""
          let created = try reader.time("a creation time")
          let modified = try reader.time("a modification time")
          var attributes: [String: String] = [:]
          for _
            in 0..<(try reader.count(
              "attributes", minimumSize: 8, limit: KeyringLimits.maxAttributes))
          {
            attributes[try reader.string("an attribute's name") ?? ""] =
              try reader.string("an attribute's value") ?? ""
          }
          let range = try reader.byteArray("a secret") ?? 0..<0
          items.append(
            BackupItem(
              number: number, label: label, contentType: contentType,
              created: AttributeConversion.date(created),
              modified: AttributeConversion.date(modified), attributes: attributes,
              secret: records.slice(range)))
        }
        collections.append(BackupCollection(name: name, label: label, items: items))
      }
      guard reader.remaining == 0 else { throw reader.damaged("bytes after the last collection") }
      return collections
    }
  }
}

/// Writes big-endian integers and length-prefixed bytes into a buffer sized beforehand.
private struct RecordWriter {
  // Invariant: `out` is the buffer `records` lends in `SecureBytes(count:)`'s initializer, and
  // the writer lives only inside that closure. Writes are not bounds-checked: `records` sizes
  // the buffer with exactly the bytes written below, field for field.
  let out: UnsafeMutableRawBufferPointer
  var offset = 0

  init(out: UnsafeMutableRawBufferPointer) { self.out = out }

  mutating func u32(_ value: Int) {
    withUnsafeBytes(of: UInt32(value).bigEndian) { raw(UnsafeRawBufferPointer($0)) }
  }

  mutating func u64(_ value: UInt64) {
    // gnome-keyring's time layout, which ByteReader.time reads: two u32s, high word first.
    u32(Int(value >> 32))
    u32(Int(value & 0xFFFF_FFFF))
  }

  mutating func text(_ string: String) {
    var string = string
    string.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
  }

  mutating func bytes(_ data: UnsafeRawBufferPointer) {
    u32(data.count)
    raw(data)
  }

  private mutating func raw(_ data: UnsafeRawBufferPointer) {
    if data.count > 0 {
      (out.baseAddress! + offset).copyMemory(from: data.baseAddress!, byteCount: data.count)
    }
    offset += data.count
  }
}
