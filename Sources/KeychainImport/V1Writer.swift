// SPDX-License-Identifier: MIT
//
// Writes one collection as a v1 keyring file, the format oo7 and libsecret's file backend read
// (see `V1Keyring` for the layout): a 32-byte random salt, 100,000 PBKDF2-SHA256 iterations (what
// both writers use and oo7 requires of a key it writes with), the index sorted by name as
// libsecret writes it, and the content type kept as oo7 keeps it, in `xdg:content-type`. Each
// item's plaintext is laid out in secure memory: the secret is not copied anywhere else.

import Foundation
import KeychainCrypto

public enum V1Writer {
  /// The PBKDF2 iteration count written.
  public static let iterations: UInt32 = 100_000

  /// The whole file for `items`, keyed by `password` (which must not be empty: an empty one
  /// is oo7's unencrypted flavour, which this never writes).
  public static func seal(_ items: [BackupItem], password: SecureBytes, now: Date = Date())
    throws -> [UInt8]
  {
    let salt = Random.bytes(count: 32)
    let key = try KeyDerivation.pbkdf2SHA256(
      password: password, salt: salt, iterations: UInt(iterations), length: 16)
    let mac = try HMACKey(key)
    let sealed = try items.map { try seal($0, key: key, mac: mac) }
    typealias W = GVariantWriter
    var header: [(bytes: [UInt8], alignment: Int, framed: Bool)] = []
    header.append((number(UInt64(salt.count), 4), 4, false))
    header.append((salt, 1, true))
    header.append((number(UInt64(iterations), 4), 4, false))
    header.append((number(UInt64(max(0, now.timeIntervalSince1970)), 8), 8, false))
    header.append((number(1, 4), 4, false))
    header.append((W.array(sealed, alignment: 1), 1, false))
    return BinaryKeyring.magic + [1, 0] + W.structure(header)
  }

  private static func number(_ value: UInt64, _ width: Int) -> [UInt8] {
    var out: [UInt8] = []
    GVariantWriter.appendNumber(value, width: width, to: &out)
    return out
  }

  /// One item: its index and its blob, C ‖ IV ‖ HMAC(C ‖ IV).
  private static func seal(_ item: BackupItem, key: SecureBytes, mac: HMACKey) throws -> [UInt8] {
    var attributes = item.attributes
    if attributes[V1Item.contentTypeAttribute] == nil {
      attributes[V1Item.contentTypeAttribute] = item.contentType
    }
    let names = attributes.keys.sorted()
    let index = try names.map { name in
      GVariantWriter.entry(
        name, try Array(attributes[name]!.utf8).withUnsafeBytes { try mac.authenticationCode([$0]) }
      )
    }
    let plaintext = Self.plaintext(item, names.map { ($0, attributes[$0]!) })
    let iv = Random.bytes(count: 16)
    let ciphertext = try AESCBC.encrypt(plaintext, key: key, iv: iv)
    let code = try (ciphertext + iv).withUnsafeBytes { try mac.authenticationCode([$0]) }
    return GVariantWriter.structure([
      (GVariantWriter.array(index, alignment: 1), 1, true), (ciphertext + iv + code, 1, false),
    ])
  }

  /// `(a{ss} s t t ay)` in secure memory.
  static func plaintext(_ item: BackupItem, _ attributes: [(String, String)]) -> SecureBytes {
    typealias W = GVariantWriter
    let pairs = W.array(
      attributes.map { W.entry($0.0, W.string($0.1)) }, alignment: 1)
    let label = W.string(item.label)
    let labelEnd = pairs.count + label.count
    let timesAt = GVariantValue.aligned(labelEnd, 8)
    let secretAt = timesAt + 16
    let body = secretAt + item.secret.count
    let width = W.offsetWidth(body: body, offsets: 2)
    var tail: [UInt8] = []
    W.appendNumber(seconds(item.created), width: 8, to: &tail)
    W.appendNumber(seconds(item.modified), width: 8, to: &tail)
    var offsets: [UInt8] = []
    W.appendNumber(UInt64(labelEnd), width: width, to: &offsets)
    W.appendNumber(UInt64(pairs.count), width: width, to: &offsets)
    return SecureBytes(count: body + offsets.count) { out in
      out.initializeMemory(as: UInt8.self, repeating: 0)
      out.copyBytes(from: pairs)
      UnsafeMutableRawBufferPointer(rebasing: out[pairs.count...]).copyBytes(from: label)
      UnsafeMutableRawBufferPointer(rebasing: out[timesAt...]).copyBytes(from: tail)
      item.secret.withUnsafeBytes {
        UnsafeMutableRawBufferPointer(rebasing: out[secretAt...]).copyMemory(from: $0)
      }
      UnsafeMutableRawBufferPointer(rebasing: out[body...]).copyBytes(from: offsets)
    }
  }

  private static func seconds(_ date: Date) -> UInt64 {
    UInt64(max(0, date.timeIntervalSince1970.rounded(.down)))
  }
}
