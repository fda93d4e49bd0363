// SPDX-License-Identifier: MIT
//
// Writes one collection as gnome-keyring's own encrypted keyring file (format 0, the one
// `BinaryKeyring` reads), so a user can take what they stored in keychaind back to
// gnome-keyring: the public header and item list with hashed attributes (MD5 hex of each value,
// as gnome-keyring hashes string attributes), then the items under AES-128-CBC with the key and
// IV of iterated SHA-256 over the password and an 8-byte salt, the content prefixed with its MD5
// and padded with zeros to whole blocks. Attributes are written as strings; item types as
// generic (gnome-keyring shows `xdg:schema` from the attributes). The content is built in
// secure memory.

import Foundation
import KeychainCrypto

public enum BinaryKeyringWriter {
  /// The iterations written (gnome-keyring picks 1,000 to 5,000 at random).
  public static let iterations: UInt32 = 5_000

  /// The whole file for a collection labelled `label` with `items`, keyed by `password`.
  public static func seal(
    label: String, created: Date, modified: Date, items: [BackupItem], password: SecureBytes
  ) throws -> [UInt8] {
    let salt = Random.bytes(count: 8)
    var out = BinaryKeyring.magic + [0, 0, 0, 0]
    appendString(label, to: &out)
    appendTime(created, to: &out)
    appendTime(modified, to: &out)
    appendU32(0, to: &out)  // lock flags
    appendU32(0, to: &out)  // lock timeout
    appendU32(iterations, to: &out)
    out += salt
    out += [UInt8](repeating: 0, count: 16)
    appendU32(UInt32(items.count), to: &out)
    let numbers = numbered(items)
    for (item, number) in zip(items, numbers) {
      appendU32(number, to: &out)
      appendU32(0, to: &out)  // generic secret
      appendU32(UInt32(item.attributes.count), to: &out)
      for (name, value) in item.attributes.sorted(by: { $0.key < $1.key }) {
        appendString(name, to: &out)
        appendU32(0, to: &out)
        appendString(MD5.hash(Array(value.utf8)).map { hex($0) }.joined(), to: &out)
      }
    }
    let content = try encryptedContent(items)
    let derived = try KeyDerivation.iteratedSHA256(
      password: password, salt: salt, iterations: Int(iterations))
    let ciphertext = try AESCBC.encryptBlocks(
      content, key: derived.slice(0..<16), iv: derived.slice(16..<32).copyBytes())
    appendU32(UInt32(ciphertext.count), to: &out)
    return out + ciphertext
  }

  /// Item numbers: each item's own where it has one and it is unique, else the next free.
  static func numbered(_ items: [BackupItem]) -> [UInt32] {
    var taken = Set<UInt32>()
    var numbers = items.map { item -> UInt32? in
      item.number > 0 && taken.insert(item.number).inserted ? item.number : nil
    }
    var next: UInt32 = 1
    for index in numbers.indices where numbers[index] == nil {
      while taken.contains(next) { next += 1 }
      taken.insert(next)
      numbers[index] = next
    }
    return numbers.map { $0! }
  }

  /// MD5 of the items, the items, zero padding to whole blocks, in secure memory.
  private static func encryptedContent(_ items: [BackupItem]) throws -> SecureBytes {
    // Everything but the secrets is laid out first; each secret goes in at its place.
    var plain: [UInt8] = []
    var secretsAt: [(Int, SecureBytes)] = []
    for item in items {
      appendString(item.label, to: &plain)
      appendU32(UInt32(item.secret.count), to: &plain)
      secretsAt.append((plain.count, item.secret))
      plain += [UInt8](repeating: 0, count: item.secret.count)
      appendTime(item.created, to: &plain)
      appendTime(item.modified, to: &plain)
      appendU32(0xFFFF_FFFF, to: &plain)  // reserved string: NULL
      plain += [UInt8](repeating: 0, count: 16)
      appendU32(UInt32(item.attributes.count), to: &plain)
      for (name, value) in item.attributes.sorted(by: { $0.key < $1.key }) {
        appendString(name, to: &plain)
        appendU32(0, to: &plain)
        appendString(value, to: &plain)
      }
      appendU32(0, to: &plain)  // no access entries
    }
    let total = 16 + plain.count
    let padded = (total + 15) / 16 * 16
    let body = SecureBytes(count: padded - 16) { out in
      out.initializeMemory(as: UInt8.self, repeating: 0)
      out.copyBytes(from: plain)
      for (offset, secret) in secretsAt {
        secret.withUnsafeBytes {
          UnsafeMutableRawBufferPointer(rebasing: out[offset...]).copyMemory(from: $0)
        }
      }
    }
    // gnome-keyring's check covers the content and its padding: all after the digest.
    let digest = MD5.hash(body)
    return SecureBytes(count: padded) { out in
      out.copyBytes(from: digest)
      body.withUnsafeBytes {
        UnsafeMutableRawBufferPointer(rebasing: out[16...]).copyMemory(from: $0)
      }
    }
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
  }

  private static func appendU32(_ value: UInt32, to out: inout [UInt8]) {
    for shift in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: value >> shift)) }
  }

  private static func appendString(_ text: String, to out: inout [UInt8]) {
    appendU32(UInt32(text.utf8.count), to: &out)
    out += Array(text.utf8)
  }

  private static func appendTime(_ date: Date, to out: inout [UInt8]) {
    let seconds = UInt64(max(0, date.timeIntervalSince1970.rounded(.down)))
    appendU32(UInt32(truncatingIfNeeded: seconds >> 32), to: &out)
    appendU32(UInt32(truncatingIfNeeded: seconds), to: &out)
  }
}
