// SPDX-License-Identifier: MIT
//
// Signatures, encryption and key agreement through libgcrypt: RFC 6979's own ECDSA vector, round
// trips, and keys that must be refused. (The Keychain library's tests check the same operations
// against Python's cryptography package.)

import KeychainCrypto
import Testing

@Suite struct PublicKeyTests {
  /// RFC 6979 A.2.5: P-256, SHA-256, message "sample".
  @Test func ecdsaReproducesRFC6979() throws {
    let scalar = hex("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721")
    let point = hex(
      """
      04 60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6
      7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299
      """)
    let key = AsymmetricKey.p256Private(point: point, scalar: secure(scalar))
    #expect(key.isConsistent)
    let digest = HashFunction.sha256.hash(Array("sample".utf8))
    let signature = try key.sign(digest: digest, hash: .sha256, scheme: .ecdsa)
    #expect(
      signature
        == hex(
          """
          EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716
          F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8
          """))
    let publicKey = AsymmetricKey.p256Public(point: point)
    #expect(publicKey.verify(signature: signature, digest: digest, hash: .sha256, scheme: .ecdsa))
    var forged = signature
    forged[10] ^= 1
    #expect(!publicKey.verify(signature: forged, digest: digest, hash: .sha256, scheme: .ecdsa))
    // A scalar that is not the point's is refused.
    var otherScalar = scalar
    otherScalar[31] ^= 1
    #expect(!AsymmetricKey.p256Private(point: point, scalar: secure(otherScalar)).isConsistent)
  }

  @Test func rsaSignsEncryptsAndChecksItsNumbers() throws {
    let numbers = try AsymmetricKeys.generateRSA(bits: 2048)
    let key = AsymmetricKey.rsaPrivate(numbers)
    let publicKey = AsymmetricKey.rsaPublic(
      modulus: numbers.modulus, exponent: numbers.publicExponent)
    #expect(key.isConsistent && publicKey.isConsistent && key.sizeInBits == 2048)
    let digest = HashFunction.sha384.hash(Array("message".utf8))
    for scheme in [SignatureScheme.pkcs1v15, .pss(saltLength: 48)] {
      let signature = try key.sign(digest: digest, hash: .sha384, scheme: scheme)
      #expect(signature.count == 256)
      #expect(publicKey.verify(signature: signature, digest: digest, hash: .sha384, scheme: scheme))
      #expect(
        !publicKey.verify(
          signature: signature, digest: HashFunction.sha384.hash([1]), hash: .sha384,
          scheme: scheme))
    }
    #expect(throws: CryptoError.self) {
      try key.sign(digest: [1, 2, 3], hash: .sha256, scheme: .pkcs1v15)
    }
    for scheme in [EncryptionScheme.pkcs1v15, .oaep(.sha1), .oaep(.sha256)] {
      let ciphertext = try publicKey.encrypt(Array("secret".utf8), scheme: scheme)
      #expect(ciphertext.count == 256)
      #expect(try key.decrypt(ciphertext, scheme: scheme) == secure("secret"))
    }
    #expect(throws: CryptoError.self) {
      try publicKey.encrypt([UInt8](repeating: 1, count: 256 - 2 * 32 - 1), scheme: .oaep(.sha256))
    }
    // Wrong CRT values, or a modulus that is not p·q, are refused.
    var wrongCRT = numbers
    wrongCRT.exponent1 = wrongCRT.exponent2
    #expect(!AsymmetricKey.rsaPrivate(wrongCRT).isConsistent)
    var wrongModulus = numbers
    wrongModulus.modulus[100] ^= 1
    #expect(!AsymmetricKey.rsaPrivate(wrongModulus).isConsistent)
    #expect(!AsymmetricKey.rsaPublic(modulus: numbers.modulus, exponent: [2]).isConsistent)
  }

  @Test func p256KeyAgreementIsSymmetric() throws {
    let (pointA, scalarA) = try AsymmetricKeys.generateP256()
    let (pointB, scalarB) = try AsymmetricKeys.generateP256()
    let ab = try AsymmetricKey.p256Private(point: pointA, scalar: scalarA).sharedSecret(
      with: pointB)
    let ba = try AsymmetricKey.p256Private(point: pointB, scalar: scalarB).sharedSecret(
      with: pointA)
    #expect(ab == ba && ab.count == 32)
    var offCurve = pointB
    offCurve[64] ^= 1
    #expect(throws: CryptoError.self) {
      try AsymmetricKey.p256Private(point: pointA, scalar: scalarA).sharedSecret(with: offCurve)
    }
  }
}
