// SPDX-License-Identifier: MIT
//
// SHA-256, HMAC-SHA256 and HKDF-SHA256. libgcrypt 1.10 has no HKDF (it arrived in 1.11), so it
// is built here on HMAC, exactly as RFC 5869 §2 describes.

import CKeychainGcrypt
import Synchronization

/// Hash functions and key derivation built on SHA-256.
public enum SHA256 {
  /// The digest size in bytes.
  public static let byteCount = 32

  /// The SHA-256 digest of `data`.
  public static func hash<Bytes: ByteInput>(_ data: Bytes) -> [UInt8] {
    Gcrypt.ensureInitialized()
    var digest = [UInt8](repeating: 0, count: byteCount)
    data.withUnsafeBytes { input in
      gcry_md_hash_buffer(Int32(GCRY_MD_SHA256.rawValue), &digest, input.baseAddress, input.count)
    }
    return digest
  }
}

/// SHA-1, for two things only: the application label Apple gives a key (the SHA-1 of its public
/// key), which programs use to find keys, and checking KDE 4's KWallet files. Never used for
/// security.
public enum SHA1 {
  /// The SHA-1 digest of `data` (20 bytes).
  public static func hash(_ data: [UInt8]) -> [UInt8] {
    Gcrypt.ensureInitialized()
    var digest = [UInt8](repeating: 0, count: 20)
    gcry_md_hash_buffer(Int32(GCRY_MD_SHA1.rawValue), &digest, data, data.count)
    return digest
  }
}

/// MD5, for reading gnome-keyring's keyring files only: they check their decrypted content with
/// it and keep hashed attribute values as its hex. Never used for security.
public enum MD5 {
  /// The MD5 digest of `data` (16 bytes).
  public static func hash<Bytes: ByteInput>(_ data: Bytes) -> [UInt8] {
    Gcrypt.ensureInitialized()
    var digest = [UInt8](repeating: 0, count: 16)
    data.withUnsafeBytes { input in
      gcry_md_hash_buffer(Int32(GCRY_MD_MD5.rawValue), &digest, input.baseAddress, input.count)
    }
    return digest
  }
}

/// HMAC-SHA256 (RFC 2104), with the key and the state in secure memory.
public enum HMACSHA256 {
  /// The MAC of the concatenation of `parts` under `key`.
  public static func authenticationCode(
    key: SecureBytes, parts: [UnsafeRawBufferPointer]
  ) throws -> SecureBytes {
    Gcrypt.ensureInitialized()
    var handle: OpaquePointer?
    try Gcrypt.check(
      gcry_mac_open(
        &handle, Int32(GCRY_MAC_HMAC_SHA256.rawValue), GCRY_MAC_FLAG_SECURE.rawValue, nil))
    defer { gcry_mac_close(handle) }
    try key.withUnsafeBytes { k throws in
      // HMAC accepts an empty key; libgcrypt wants a non-null pointer for it.
      try Gcrypt.check(
        gcry_mac_setkey(handle, k.baseAddress ?? UnsafeRawPointer(bitPattern: 1), k.count))
    }
    for part in parts where part.count > 0 {
      try Gcrypt.check(gcry_mac_write(handle, part.baseAddress, part.count))
    }
    return try SecureBytes(count: SHA256.byteCount) { out in
      var length = out.count
      try Gcrypt.check(gcry_mac_read(handle, out.baseAddress, &length))
    }
  }

  /// The MAC of `message` under `key`.
  public static func authenticationCode<Bytes: ByteInput>(key: SecureBytes, message: Bytes)
    throws -> SecureBytes
  {
    try message.withUnsafeBytes { try authenticationCode(key: key, parts: [$0]) }
  }
}

/// HKDF-SHA256 (RFC 5869).
public enum HKDF {
  /// Derives `length` bytes (at most 255 × 32) from `inputKey`.
  /// - Parameters:
  ///   - salt: the extract salt; empty means 32 zero bytes, as the RFC says.
  ///   - info: context binding the output to its use.
  public static func deriveKey(
    inputKey: SecureBytes, salt: [UInt8] = [], info: [UInt8] = [], length: Int
  ) throws -> SecureBytes {
    guard length > 0, length <= 255 * SHA256.byteCount else {
      throw CryptoError.invalidInput("HKDF output length \(length) is outside 1...8160")
    }
    let saltKey = SecureBytes(copying: salt.isEmpty ? [UInt8](repeating: 0, count: 32) : salt)
    let pseudoRandomKey = try HMACSHA256.authenticationCode(key: saltKey, message: inputKey)
    var blocks: [SecureBytes] = []
    var previous = SecureBytes(copying: [])
    var produced = 0
    var counter: UInt8 = 1
    while produced < length {
      previous = try previous.withUnsafeBytes { t in
        try info.withUnsafeBytes { i in
          try withUnsafeBytes(of: counter) { c in
            try HMACSHA256.authenticationCode(key: pseudoRandomKey, parts: [t, i, c])
          }
        }
      }
      blocks.append(previous)
      produced += SHA256.byteCount
      counter &+= 1
    }
    return SecureBytes(count: length) { out in
      var offset = 0
      for block in blocks where offset < length {
        block.withUnsafeBytes { b in
          let n = min(b.count, length - offset)
          out.baseAddress!.advanced(by: offset).copyMemory(from: b.baseAddress!, byteCount: n)
          offset += n
        }
      }
    }
  }
}

extension SecureBytes: ByteInput {}

/// An HMAC-SHA256 key kept open in libgcrypt, for many MACs under one key, such as the digests
/// of the attribute index. Opening a handle and setting its key cost more than the MAC of a
/// short message (each open also reads the clock and the process's resource usage), so the one
/// handle is reset between messages instead. Safe to share: calls take turns on the handle.
public final class HMACKey: Sendable {
  private final class Handle: @unchecked Sendable {
    // Invariant: `raw` is used only inside `HMACKey.handle`'s lock, and closed once.
    let raw: OpaquePointer
    init(_ raw: OpaquePointer) { self.raw = raw }
    deinit { gcry_mac_close(raw) }
  }

  private let handle: Mutex<Handle>

  /// Opens a handle keyed with `key`, the key held in secure memory.
  public init(_ key: SecureBytes) throws {
    Gcrypt.ensureInitialized()
    var raw: OpaquePointer?
    try Gcrypt.check(
      gcry_mac_open(&raw, Int32(GCRY_MAC_HMAC_SHA256.rawValue), GCRY_MAC_FLAG_SECURE.rawValue, nil))
    let opened = Handle(raw!)
    try key.withUnsafeBytes { k throws in
      try Gcrypt.check(
        gcry_mac_setkey(opened.raw, k.baseAddress ?? UnsafeRawPointer(bitPattern: 1), k.count))
    }
    handle = Mutex(opened)
  }

  /// The 32-byte MAC of the concatenation of `parts`, as an ordinary array: for MACs that are
  /// not secret themselves (they are stored in the clear, like the index digests).
  public func authenticationCode(_ parts: [UnsafeRawBufferPointer]) throws -> [UInt8] {
    try handle.withLock { handle in
      try Gcrypt.check(gcry_mac_ctl(handle.raw, Int32(GCRYCTL_RESET.rawValue), nil, 0))
      for part in parts where part.count > 0 {
        try Gcrypt.check(gcry_mac_write(handle.raw, part.baseAddress, part.count))
      }
      var code = [UInt8](repeating: 0, count: SHA256.byteCount)
      var length = code.count
      try Gcrypt.check(gcry_mac_read(handle.raw, &code, &length))
      return code
    }
  }
}
