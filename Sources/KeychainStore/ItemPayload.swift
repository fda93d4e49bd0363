// SPDX-License-Identifier: MIT
//
// What is sealed per item: label, content type, attributes and secret, in one length-prefixed
// record. It is built and parsed in secure memory, so the secret never passes through an
// ordinary buffer on its way to or from the cipher.

import KeychainCrypto

struct ItemPayload {
  var label: String
  var contentType: String
  var attributes: [String: String]
  var secret: SecureBytes

  private static let version: UInt8 = 1

  /// The record in secure memory.
  func encoded() -> SecureBytes {
    let texts =
      [label, contentType] + attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
    let size = 1 + 4 + texts.reduce(0) { $0 + 4 + $1.utf8.count } + 4 + secret.count
    // The raw copies below are not bounds-checked: `size` counts exactly what they write (the
    // version, the count, then each text and the secret with its length), and every source
    // pointer is lent by a `withUnsafeBytes` that encloses its copy.
    return SecureBytes(count: size) { out in
      var offset = 0
      func put(_ bytes: UnsafeRawBufferPointer) {
        withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { length in
          (out.baseAddress! + offset).copyMemory(from: length.baseAddress!, byteCount: 4)
        }
        offset += 4
        if bytes.count > 0 {
          (out.baseAddress! + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
        offset += bytes.count
      }
      out[0] = Self.version
      offset = 1
      withUnsafeBytes(of: UInt32(attributes.count).bigEndian) { count in
        (out.baseAddress! + offset).copyMemory(from: count.baseAddress!, byteCount: 4)
      }
      offset += 4
      for text in texts { Array(text.utf8).withUnsafeBytes { put($0) } }
      secret.withUnsafeBytes { put($0) }
    }
  }

  /// Parses a record; throws `corrupt` on anything malformed.
  init(decoding record: SecureBytes) throws {
    var parsed: ItemPayload?
    try record.withUnsafeBytes { bytes in
      var offset = 0
      func take(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, offset + count <= bytes.count else {
          throw StoreError.corrupt("item record is truncated")
        }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
      }
      func length() throws -> Int {
        Int(try take(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
      }
      // `String(decoding:as:)` mends invalid UTF-8 rather than failing, so a text is valid when
      // nothing was mended: when the string holds the very bytes it was made from.
      // (`String(validating:as:)` answers the same through a generic the standard library does
      // not specialize: 650 instructions of metadata lookups a text, eight texts a GetSecret.)
      func text() throws -> String {
        let bytes = try take(try length())
        let s = String(decoding: bytes, as: UTF8.self)
        guard s.utf8.elementsEqual(bytes) else {
          throw StoreError.corrupt("item record holds invalid text")
        }
        return s
      }
      guard try take(1)[0] == Self.version else {
        throw StoreError.corrupt("unknown item record version")
      }
      let count = try length()
      guard count <= StoreLimits.maxAttributes else {
        throw StoreError.corrupt("too many attributes")
      }
      let label = try text()
      let contentType = try text()
      var attributes: [String: String] = [:]
      for _ in 0..<count { attributes[try text()] = try text() }
      // The secret stays where the decryption put it: a slice, not a copy (a 10 MiB secret was
      // copied here once more on every read).
      let secretLength = try length()
      let secretStart = offset
      _ = try take(secretLength)
      let secret = record.slice(secretStart..<(secretStart + secretLength))
      guard offset == bytes.count else {
        throw StoreError.corrupt("item record has trailing bytes")
      }
      parsed = ItemPayload(
        label: label, contentType: contentType, attributes: attributes, secret: secret)
    }
    self = parsed!
  }

  init(label: String, contentType: String, attributes: [String: String], secret: SecureBytes) {
    self.label = label
    self.contentType = contentType
    self.attributes = attributes
    self.secret = secret
  }

  /// Refuses what is over the documented limits.
  static func checkLimits(label: String, attributes: [String: String], secretCount: Int) throws {
    guard secretCount <= StoreLimits.maxSecretBytes else {
      throw StoreError.limitExceeded(
        "a secret of \(secretCount) bytes is over \(StoreLimits.maxSecretBytes)")
    }
    guard attributes.count <= StoreLimits.maxAttributes else {
      throw StoreError.limitExceeded(
        "\(attributes.count) attributes are over \(StoreLimits.maxAttributes)")
    }
    let longest = attributes.map { max($0.key.utf8.count, $0.value.utf8.count) }.max() ?? 0
    guard longest <= StoreLimits.maxTextBytes, label.utf8.count <= StoreLimits.maxTextBytes else {
      throw StoreError.limitExceeded(
        "an attribute or label is over \(StoreLimits.maxTextBytes) bytes")
    }
  }
}
