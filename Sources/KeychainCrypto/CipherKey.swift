// SPDX-License-Identifier: MIT
//
// A symmetric key with a libgcrypt cipher handle kept open for it. Opening a handle and setting
// its key cost more than decrypting an item's record: each open allocates secure memory and
// reads the clock and the process's resource usage (two system calls), which was a twentieth of
// a GetSecret. So a key held for many operations (an unlocked collection's data key, a DH
// session's key) keeps one spare handle, reset between uses. A caller that finds the spare taken
// (another thread is using it) opens its own, so no operation waits for another.

import CKeychainGcrypt
import Synchronization

/// One libgcrypt cipher context, closed (and wiped: it is opened secure) when freed.
final class Cipher: @unchecked Sendable {
  // Invariant for @unchecked Sendable: a handle is used by one operation at a time; a
  // `CipherKey` hands its spare to one caller and takes it back after.
  let handle: OpaquePointer

  init(algorithm: gcry_cipher_algos, mode: gcry_cipher_modes, key: SecureBytes) throws {
    Gcrypt.ensureInitialized()
    var handle: OpaquePointer?
    try Gcrypt.check(
      gcry_cipher_open(
        &handle, Int32(algorithm.rawValue), Int32(mode.rawValue),
        UInt32(GCRY_CIPHER_SECURE.rawValue)))
    self.handle = handle!
    try key.withUnsafeBytes { k in
      try Gcrypt.check(gcry_cipher_setkey(self.handle, k.baseAddress, k.count))
    }
  }

  deinit { gcry_cipher_close(handle) }

  func setIV(_ iv: UnsafeRawBufferPointer) throws {
    try Gcrypt.check(gcry_cipher_setiv(handle, iv.baseAddress, iv.count))
  }

  /// Runs `operation` (encrypt or decrypt) from `input` to `output`, both `count` bytes.
  func apply(
    _ operation: (OpaquePointer, UnsafeMutableRawPointer?, Int, UnsafeRawPointer?, Int) ->
      gcry_error_t,
    input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer
  ) throws {
    guard input.count > 0 else { return }
    try Gcrypt.check(
      operation(handle, output.baseAddress, output.count, input.baseAddress, input.count))
  }
}

/// A key for one cipher and mode, kept in secure memory with a handle open for it.
public final class CipherKey: Sendable {
  /// The key's bytes, for wrapping it under another key.
  public let bytes: SecureBytes
  private let algorithm: gcry_cipher_algos
  private let mode: gcry_cipher_modes
  private let spare = Mutex<Cipher?>(nil)

  /// An AES-256-GCM key (`AESGCM`); `bytes` must be 32 bytes.
  public static func gcm(_ bytes: SecureBytes) throws -> CipherKey {
    guard bytes.count == AESGCM.keySize else {
      throw CryptoError.invalidInput("AES-256 needs a 32-byte key")
    }
    return CipherKey(bytes, GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_GCM)
  }

  /// An AES-128-CBC key (`AESCBC`); `bytes` must be 16 bytes.
  public static func cbc(_ bytes: SecureBytes) throws -> CipherKey {
    guard bytes.count == AESCBC.keySize else {
      throw CryptoError.invalidInput("AES-128 needs a 16-byte key")
    }
    return CipherKey(bytes, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_CBC)
  }

  private init(_ bytes: SecureBytes, _ algorithm: gcry_cipher_algos, _ mode: gcry_cipher_modes) {
    self.bytes = bytes
    self.algorithm = algorithm
    self.mode = mode
  }

  /// Runs `body` with a handle keyed with this key and reset (no IV, no state of earlier use).
  func withCipher<T>(_ body: (Cipher) throws -> T) throws -> T {
    let cipher: Cipher
    if let kept = spare.withLock({ $0.take() }) {
      cipher = kept
      try Gcrypt.check(gcry_cipher_ctl(cipher.handle, Int32(GCRYCTL_RESET.rawValue), nil, 0))
    } else {
      cipher = try Cipher(algorithm: algorithm, mode: mode, key: bytes)
    }
    // Kept for the next use unless another is kept meanwhile; a handle not kept is closed.
    defer { spare.withLock { if $0 == nil { $0 = cipher } } }
    return try body(cipher)
  }
}
