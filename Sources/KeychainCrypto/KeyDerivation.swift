// SPDX-License-Identifier: MIT
//
// Password-based key derivation: Argon2id for collection passwords, PBKDF2 for compatibility.

import CKeychainGcrypt

/// Argon2id cost parameters, stored beside every key they protect so they can change later.
public struct Argon2Parameters: Codable, Hashable, Sendable {
  /// Passes over memory (t).
  public var iterations: UInt32
  /// Memory in KiB (m).
  public var memoryKiB: UInt32
  /// Lanes (p). libgcrypt computes them one after another here.
  public var parallelism: UInt32

  public init(iterations: UInt32, memoryKiB: UInt32, parallelism: UInt32) {
    self.iterations = iterations
    self.memoryKiB = memoryKiB
    self.parallelism = parallelism
  }

  /// RFC 9106's second recommended choice: t=3, m=64 MiB, p=4; about 0.2–0.3 s on the
  /// 2-core machine this project targets.
  public static let recommended = Argon2Parameters(iterations: 3, memoryKiB: 65_536, parallelism: 4)

  /// Cheap parameters for tests only: they protect nothing.
  public static let testing = Argon2Parameters(iterations: 1, memoryKiB: 64, parallelism: 1)
}

/// Key derivation from passwords.
public enum KeyDerivation {
  /// Argon2id (RFC 9106) of `password`, `length` bytes, optionally with a secret and associated
  /// data as the RFC's K and X inputs.
  public static func argon2id(
    password: SecureBytes, salt: [UInt8], parameters: Argon2Parameters, length: Int = 32,
    secret: [UInt8] = [], associatedData: [UInt8] = []
  ) throws -> SecureBytes {
    guard salt.count >= 8 else {
      throw CryptoError.invalidInput("Argon2 salt must be at least 8 bytes")
    }
    guard parameters.iterations >= 1, parameters.parallelism >= 1,
      parameters.memoryKiB >= 8 * parameters.parallelism
    else { throw CryptoError.invalidInput("Argon2 parameters out of range") }
    Gcrypt.ensureInitialized()
    let params: [UInt] = [
      UInt(length), UInt(parameters.iterations), UInt(parameters.memoryKiB),
      UInt(parameters.parallelism),
    ]
    // libgcrypt's argon2_open keeps the input pointers (password, salt, K, X) and reads them in
    // gcry_kdf_compute, so open, compute and final all run while every buffer is borrowed.
    return try password.withUnsafeBytes { passwordBytes in
      try salt.withUnsafeBytes { saltBytes in
        try secret.withUnsafeBytes { secretBytes in
          try associatedData.withUnsafeBytes { dataBytes in
            var handle: OpaquePointer?
            try Gcrypt.check(
              gcry_kdf_open(
                &handle, Int32(GCRY_KDF_ARGON2.rawValue), Int32(GCRY_KDF_ARGON2ID.rawValue),
                params, UInt32(params.count), passwordBytes.baseAddress, passwordBytes.count,
                saltBytes.baseAddress, saltBytes.count,
                secret.isEmpty ? nil : secretBytes.baseAddress, secretBytes.count,
                associatedData.isEmpty ? nil : dataBytes.baseAddress, dataBytes.count))
            defer { gcry_kdf_close(handle) }
            try Gcrypt.check(gcry_kdf_compute(handle, nil))
            return try SecureBytes(count: length) { out in
              try Gcrypt.check(gcry_kdf_final(handle, length, out.baseAddress))
            }
          }
        }
      }
    }
  }

  /// gnome-keyring's key derivation for its keyring files: SHA-256 of the password followed by
  /// the salt, then SHA-256 of the digest `iterations - 1` more times (32 bytes: an AES-128 key
  /// and its CBC IV). Every intermediate digest stays in secure memory.
  public static func iteratedSHA256(
    password: SecureBytes, salt: [UInt8], iterations: Int
  ) throws -> SecureBytes {
    guard iterations >= 1 else { throw CryptoError.invalidInput("no iterations") }
    Gcrypt.ensureInitialized()
    var handle: gcry_md_hd_t?
    try Gcrypt.check(
      gcry_md_open(&handle, Int32(GCRY_MD_SHA256.rawValue), UInt32(GCRY_MD_FLAG_SECURE.rawValue)))
    defer { gcry_md_close(handle) }
    let digest = SecureScratch(capacity: SHA256.byteCount)
    password.withUnsafeBytes { p in gcry_md_write(handle, p.baseAddress, p.count) }
    gcry_md_write(handle, salt, salt.count)
    for round in 0..<iterations {
      digest.withUnsafeMutableBytes { out in
        // The digest lives in the handle's secure memory until the next reset.
        out.copyMemory(
          from: UnsafeRawBufferPointer(
            start: gcry_md_read(handle, Int32(GCRY_MD_SHA256.rawValue)), count: out.count))
        if round < iterations - 1 {
          gcry_md_reset(handle)
          gcry_md_write(handle, out.baseAddress, out.count)
        }
      }
    }
    return digest.prefix(SHA256.byteCount)
  }

  /// PBKDF2-HMAC-SHA256 (RFC 8018) of `password`, `length` bytes.
  public static func pbkdf2SHA256(
    password: SecureBytes, salt: [UInt8], iterations: UInt, length: Int = 32
  ) throws -> SecureBytes {
    try pbkdf2(
      GCRY_MD_SHA256, password: password, salt: salt, iterations: iterations, length: length)
  }

  /// PBKDF2-HMAC-SHA512 of `password`, `length` bytes: the key of KDE's KWallet files.
  public static func pbkdf2SHA512(
    password: SecureBytes, salt: [UInt8], iterations: UInt, length: Int
  ) throws -> SecureBytes {
    try pbkdf2(
      GCRY_MD_SHA512, password: password, salt: salt, iterations: iterations, length: length)
  }

  private static func pbkdf2(
    _ hash: gcry_md_algos, password: SecureBytes, salt: [UInt8], iterations: UInt, length: Int
  ) throws -> SecureBytes {
    guard iterations >= 1, length >= 1 else {
      throw CryptoError.invalidInput("PBKDF2 needs iterations and a length")
    }
    Gcrypt.ensureInitialized()
    return try SecureBytes(count: length) { out in
      try password.withUnsafeBytes { p in
        try Gcrypt.check(
          gcry_kdf_derive(
            p.baseAddress ?? UnsafeRawPointer(bitPattern: 1), p.count,
            Int32(GCRY_KDF_PBKDF2.rawValue),
            Int32(hash.rawValue), salt, salt.count, iterations, length, out.baseAddress))
      }
    }
  }
}
