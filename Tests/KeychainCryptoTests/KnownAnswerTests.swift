// SPDX-License-Identifier: MIT
//
// Published known-answer vectors: each function must reproduce its standard's own test cases.

import KeychainCrypto
import Testing

func hex(_ text: String) -> [UInt8] {
  let digits = Array(text.filter { !$0.isWhitespace })
  return stride(from: 0, to: digits.count, by: 2).map {
    UInt8(String(digits[$0...$0 + 1]), radix: 16)!
  }
}

func secure(_ bytes: [UInt8]) -> SecureBytes { SecureBytes(copying: bytes) }
func secure(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

@Suite struct KnownAnswerTests {
  @Test func sha256OfAbc() {
    #expect(
      SHA256.hash(Array("abc".utf8))
        == hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
  }

  /// RFC 4231 test cases 1, 2 and 6.
  @Test(arguments: [
    (
      [UInt8](repeating: 0x0b, count: 20), "Hi There",
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    ),
    (
      Array("Jefe".utf8), "what do ya want for nothing?",
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    ),
    (
      [UInt8](repeating: 0xaa, count: 131),
      "Test Using Larger Than Block-Size Key - Hash Key First",
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    ),
  ])
  func hmacSHA256(key: [UInt8], message: String, expected: String) throws {
    let mac = try HMACSHA256.authenticationCode(key: secure(key), message: Array(message.utf8))
    #expect(mac.copyBytes() == hex(expected))
    // The kept-open key gives the same MAC, again after a reset, and over split parts.
    let kept = try HMACKey(secure(key))
    let bytes = Array(message.utf8)
    for _ in 0..<2 {
      #expect(try bytes.withUnsafeBytes { try kept.authenticationCode([$0]) } == hex(expected))
    }
    let split = try bytes.withUnsafeBytes { all in
      try kept.authenticationCode([
        UnsafeRawBufferPointer(rebasing: all[..<3]), UnsafeRawBufferPointer(rebasing: all[3...]),
      ])
    }
    #expect(split == hex(expected))
  }

  /// RFC 5869 test cases 1 and 3 (3: no salt, no info).
  @Test func hkdfSHA256() throws {
    let ikm = secure([UInt8](repeating: 0x0b, count: 22))
    let one = try HKDF.deriveKey(
      inputKey: ikm, salt: hex("000102030405060708090a0b0c"), info: hex("f0f1f2f3f4f5f6f7f8f9"),
      length: 42)
    #expect(
      one.copyBytes()
        == hex(
          "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    let three = try HKDF.deriveKey(inputKey: ikm, length: 42)
    #expect(
      three.copyBytes()
        == hex(
          "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
    #expect(throws: CryptoError.self) { try HKDF.deriveKey(inputKey: ikm, length: 0) }
  }

  /// The GCM specification's AES-256 test cases 13, 14 and 16.
  @Test func aes256GCM() throws {
    let zeroKey = secure([UInt8](repeating: 0, count: 32))
    let zeroNonce = [UInt8](repeating: 0, count: 12)
    let case13 = try AESGCM.seal([UInt8](), key: zeroKey, nonce: zeroNonce)
    #expect(Array(case13.dropFirst(12)) == hex("530f8afbc74536b9a963b4f1c4cb738b"))
    let case14 = try AESGCM.seal([UInt8](repeating: 0, count: 16), key: zeroKey, nonce: zeroNonce)
    #expect(
      Array(case14.dropFirst(12))
        == hex("cea7403d4d606b6e074ec5d3baf39d18 d0d1c8a799996bf0265b98b5d48ab919"))

    let key = secure(hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"))
    let plaintext = hex(
      """
      d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
      1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39
      """)
    let aad = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
    let sealed = try AESGCM.seal(
      plaintext, key: key, associatedData: aad, nonce: hex("cafebabefacedbaddecaf888"))
    #expect(
      Array(sealed.dropFirst(12))
        == hex(
          """
          522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
          8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662\
          76fc6ece0f4e1768cddf8853bb2d551b
          """))
    #expect(try AESGCM.open(sealed, key: key, associatedData: aad).copyBytes() == plaintext)
  }

  /// NIST SP 800-38A F.2.1 (CBC-AES128), two blocks, then the full padding block.
  @Test func aes128CBC() throws {
    let key = secure(hex("2b7e151628aed2a6abf7158809cf4f3c"))
    let iv = hex("000102030405060708090a0b0c0d0e0f")
    let plaintext = hex("6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51")
    let ciphertext = try AESCBC.encrypt(plaintext, key: key, iv: iv)
    #expect(ciphertext.count == 48, "aligned input gains a whole padding block")
    #expect(
      Array(ciphertext.prefix(32))
        == hex("7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2"))
    #expect(try AESCBC.decrypt(ciphertext, key: key, iv: iv).copyBytes() == plaintext)
  }

  /// RFC 7914 §11, the PBKDF2-HMAC-SHA256 vectors.
  @Test func pbkdf2SHA256() throws {
    let first = try KeyDerivation.pbkdf2SHA256(
      password: secure("passwd"), salt: Array("salt".utf8), iterations: 1, length: 64)
    #expect(
      first.copyBytes()
        == hex(
          """
          55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc\
          49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783
          """))
    let second = try KeyDerivation.pbkdf2SHA256(
      password: secure("Password"), salt: Array("NaCl".utf8), iterations: 80_000, length: 64)
    #expect(
      second.copyBytes()
        == hex(
          """
          4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56\
          a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d
          """))
  }

  /// RFC 9106 §5.3, Argon2id with secret and associated data.
  @Test func argon2id() throws {
    let tag = try KeyDerivation.argon2id(
      password: secure([UInt8](repeating: 1, count: 32)), salt: [UInt8](repeating: 2, count: 16),
      parameters: Argon2Parameters(iterations: 3, memoryKiB: 32, parallelism: 4), length: 32,
      secret: [UInt8](repeating: 3, count: 8), associatedData: [UInt8](repeating: 4, count: 12))
    #expect(
      tag.copyBytes() == hex("0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"))
  }
}
