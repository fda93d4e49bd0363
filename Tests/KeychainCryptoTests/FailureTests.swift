// SPDX-License-Identifier: MIT
//
// Every way decryption can be fed the wrong thing ends in a typed error, never in plaintext.

import KeychainCrypto
import Testing

@Suite struct FailureTests {
  let key = SecureBytes.random(count: 32)
  let message = Array("the secret".utf8)

  @Test func gcmRoundTripsWithRandomNonces() throws {
    let a = try AESGCM.seal(message, key: key, associatedData: [1])
    let b = try AESGCM.seal(message, key: key, associatedData: [1])
    #expect(a != b, "each seal draws a fresh nonce")
    #expect(try AESGCM.open(a, key: key, associatedData: [1]).copyBytes() == message)
    #expect(try AESGCM.open(try AESGCM.seal([UInt8](), key: key), key: key).count == 0)
  }

  @Test func gcmRefusesAWrongTagKeyOrAssociatedData() throws {
    let sealed = try AESGCM.seal(message, key: key, associatedData: Array("item 1".utf8))
    var tampered = sealed
    tampered[tampered.count - 1] ^= 1
    #expect(throws: CryptoError.authenticationFailed) {
      try AESGCM.open(tampered, key: key, associatedData: Array("item 1".utf8))
    }
    var flipped = sealed
    flipped[13] ^= 0x80
    #expect(throws: CryptoError.authenticationFailed) {
      try AESGCM.open(flipped, key: key, associatedData: Array("item 1".utf8))
    }
    #expect(throws: CryptoError.authenticationFailed) {
      try AESGCM.open(sealed, key: key, associatedData: Array("item 2".utf8))
    }
    #expect(throws: CryptoError.authenticationFailed) {
      try AESGCM.open(
        sealed, key: SecureBytes.random(count: 32), associatedData: Array("item 1".utf8))
    }
    #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open([1, 2, 3], key: key) }
    #expect(throws: CryptoError.self) {
      try AESGCM.seal(message, key: SecureBytes.random(count: 16))
    }
  }

  @Test func cbcRefusesBadPaddingAndShapes() throws {
    let key = SecureBytes.random(count: 16)
    let iv = Random.bytes(count: 16)
    for length in [0, 1, 15, 16, 17, 1000] {
      let plaintext = Random.bytes(count: length)
      let ciphertext = try AESCBC.encrypt(plaintext, key: key, iv: iv)
      #expect(ciphertext.count == (length / 16 + 1) * 16)
      #expect(try AESCBC.decrypt(ciphertext, key: key, iv: iv).copyBytes() == plaintext)
    }
    // A forged final block decrypts to random bytes: its padding is wrong 255 times in 256.
    let forged = try AESCBC.encrypt(message, key: key, iv: iv).prefix(16) + Random.bytes(count: 16)
    var badPadding = 0
    for attempt in 0..<32 {
      var candidate = Array(forged)
      candidate[31] = UInt8(attempt)
      do { _ = try AESCBC.decrypt(candidate, key: key, iv: iv) } catch CryptoError.badPadding {
        badPadding += 1
      }
    }
    #expect(badPadding >= 28)
    #expect(throws: CryptoError.self) { try AESCBC.decrypt([], key: key, iv: iv) }
    #expect(throws: CryptoError.self) {
      try AESCBC.decrypt([UInt8](repeating: 0, count: 17), key: key, iv: iv)
    }
    #expect(throws: CryptoError.self) { try AESCBC.encrypt(message, key: key, iv: [0]) }
  }

  @Test func secureBytesCompareInConstantTimeAndNeverPrintTheirContent() {
    let a = SecureBytes(copying: Array("hunter2".utf8))
    #expect(a == SecureBytes(copying: Array("hunter2".utf8)))
    #expect(a != SecureBytes(copying: Array("hunter3".utf8)))
    #expect(a != SecureBytes(copying: Array("hunter".utf8)))
    #expect(!"\(a)".contains("hunter"))
    #expect("\(a)" == "SecureBytes(7 bytes, redacted)")
    #expect(SecureBytes.random(count: 32) != SecureBytes.random(count: 32))
  }

  /// A slice is the bytes of its range, without a copy, and compares like any other bytes.
  @Test func slicesShareTheirBufferAndHoldTheirRange() {
    let record = SecureBytes(copying: Array("label:hunter2!".utf8))
    let secret = record.slice(6..<13)
    #expect(secret == SecureBytes(copying: Array("hunter2".utf8)))
    #expect(secret.count == 7 && secret.copyBytes() == Array("hunter2".utf8))
    #expect(secret.slice(0..<6).copyBytes() == Array("hunter".utf8))
    #expect(record.slice(14..<14).count == 0)
    let shared = record.withUnsafeBytes { whole in
      secret.withUnsafeBytes { part in part.baseAddress == whole.baseAddress.map { $0 + 6 } }
    }
    #expect(shared, "a slice points into its parent's buffer")
  }

  @Test func kdfsRefuseNonsenseParameters() {
    let password = SecureBytes(copying: Array("pw".utf8))
    #expect(throws: CryptoError.self) {
      try KeyDerivation.argon2id(password: password, salt: [1, 2], parameters: .testing)
    }
    #expect(throws: CryptoError.self) {
      try KeyDerivation.argon2id(
        password: password, salt: Random.bytes(count: 16),
        parameters: Argon2Parameters(iterations: 0, memoryKiB: 64, parallelism: 1))
    }
    #expect(throws: CryptoError.self) {
      try KeyDerivation.pbkdf2SHA256(password: password, salt: [1], iterations: 0)
    }
  }

  @Test func libgcryptInitialisesOnce() throws {
    let status = try Gcrypt.initialize()
    #expect(status.version.hasPrefix("1."))
    #expect(try Gcrypt.initialize().version == status.version)
  }
}
