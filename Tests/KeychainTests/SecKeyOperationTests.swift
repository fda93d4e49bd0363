// SPDX-License-Identifier: MIT
//
// SecKey's signatures, encryption and key agreement checked against another implementation:
// Python's cryptography package (installed with python3-secretstorage) verifies and decrypts
// what the library made, and the library verifies and decrypts what Python made, with the
// same keys. Also Apple's error codes for what a key cannot do.

import Foundation
import Keychain
import KeychainTesting
import Testing

@Suite struct SecKeyOperationTests {
  /// What Python does with the keys and outputs it is given; prints one JSON object.
  static let python = """
    import json, sys
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, padding
    from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
    given = {k: bytes.fromhex(v) for k, v in json.load(sys.stdin).items()}
    rsa = serialization.load_der_private_key(given["rsa"], None)
    scalar = int.from_bytes(given["ec"][65:], "big")
    ours = ec.derive_private_key(scalar, ec.SECP256R1())
    message, out = b"hello", {}
    pss = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    assert ours.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint) == given["ec"][:65]
    rsa.public_key().verify(given["pkcs1"], message, padding.PKCS1v15(), hashes.SHA256())
    rsa.public_key().verify(given["pss"], message, pss, hashes.SHA256())
    ours.public_key().verify(given["ecdsa"], message, ec.ECDSA(hashes.SHA256()))
    out["oaepPlain"] = rsa.decrypt(given["oaep"], oaep).hex()
    out["pkcs1Plain"] = rsa.decrypt(given["pkcs1enc"], padding.PKCS1v15()).hex()
    out["pySigPKCS1"] = rsa.sign(message, padding.PKCS1v15(), hashes.SHA256()).hex()
    out["pySigPSS"] = rsa.sign(message, pss, hashes.SHA256()).hex()
    out["pySigECDSA"] = ours.sign(message, ec.ECDSA(hashes.SHA256())).hex()
    out["pyOAEP"] = rsa.public_key().encrypt(b"from python", oaep).hex()
    theirs = ec.generate_private_key(ec.SECP256R1())
    out["pyPoint"] = theirs.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint).hex()
    shared = theirs.exchange(ec.ECDH(), ours.public_key())
    out["shared"] = shared.hex()
    out["x963"] = X963KDF(hashes.SHA256(), 42, b"info").derive(shared).hex()
    print(json.dumps(out))
    """

  private func key(_ type: CFString, bits: Int) throws -> SecKey {
    let parameters: [String: Any] = [
      kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits,
    ]
    return try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
  }

  private func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

  private func bytes(_ hex: String) -> Data {
    let digits = Array(hex)
    return Data(
      stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(digits[$0...$0 + 1]), radix: 16)!
      }
    )
  }

  @Test func pythonCryptographyAgreesBothWays() throws {
    let rsa = try key(kSecAttrKeyTypeRSA, bits: 2048)
    let ec = try key(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
    let (rsaPublic, ecPublic) = (
      try #require(SecKeyCopyPublicKey(rsa)), try #require(SecKeyCopyPublicKey(ec))
    )
    let message = Data("hello".utf8) as CFData
    func made(_ data: CFData?) throws -> Data { try #require(data) as Data }
    let given: [String: String] = [
      "rsa": hex(try made(SecKeyCopyExternalRepresentation(rsa, nil))),
      "ec": hex(try made(SecKeyCopyExternalRepresentation(ec, nil))),
      "pkcs1": hex(
        try made(SecKeyCreateSignature(rsa, .rsaSignatureMessagePKCS1v15SHA256, message, nil))),
      "pss": hex(try made(SecKeyCreateSignature(rsa, .rsaSignatureMessagePSSSHA256, message, nil))),
      "ecdsa": hex(
        try made(SecKeyCreateSignature(ec, .ecdsaSignatureMessageX962SHA256, message, nil))),
      "oaep": hex(
        try made(
          SecKeyCreateEncryptedData(
            rsaPublic, .rsaEncryptionOAEPSHA256, Data("to python".utf8) as CFData, nil))),
      "pkcs1enc": hex(
        try made(
          SecKeyCreateEncryptedData(
            rsaPublic, .rsaEncryptionPKCS1, Data("old style".utf8) as CFData, nil))),
    ]
    let run = try runCommand(
      "/usr/bin/python3", ["-c", Self.python],
      stdin: Array(try JSONSerialization.data(withJSONObject: given)))
    #expect(run.status == 0, "\(run.stderr)")
    let answer = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: String])
    func from(_ key: String) throws -> Data { bytes(try #require(answer[key])) }

    // Python verified our three signatures (or it would have failed) and decrypted ours.
    #expect(try from("oaepPlain") == Data("to python".utf8))
    #expect(try from("pkcs1Plain") == Data("old style".utf8))
    // We verify Python's signatures and decrypt what it encrypted.
    for (algorithm, field, key) in [
      (SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256, "pySigPKCS1", rsaPublic),
      (.rsaSignatureMessagePSSSHA256, "pySigPSS", rsaPublic),
      (.ecdsaSignatureMessageX962SHA256, "pySigECDSA", ecPublic),
    ] {
      var error: Unmanaged<CFError>?
      #expect(SecKeyVerifySignature(key, algorithm, message, try from(field) as CFData, &error))
      #expect(error == nil, "\(field)")
    }
    let decrypted = SecKeyCreateDecryptedData(
      rsa, .rsaEncryptionOAEPSHA256, try from("pyOAEP") as CFData, nil)
    #expect(decrypted as Data? == Data("from python".utf8))

    // ECDH with Python's key gives Python's secret, raw and through the X9.63 KDF.
    let options = [
      kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
      kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
    ]
    let theirs = try #require(
      SecKeyCreateWithData(try from("pyPoint") as CFData, options as CFDictionary, nil))
    let raw = SecKeyCopyKeyExchangeResult(
      ec, .ecdhKeyExchangeStandard, theirs, [:] as CFDictionary, nil)
    #expect(raw as Data? == (try from("shared")))
    let parameters: [String: Any] = [
      kSecKeyKeyExchangeParameterRequestedSize as String: 42,
      kSecKeyKeyExchangeParameterSharedInfo as String: Data("info".utf8),
    ]
    let derived = SecKeyCopyKeyExchangeResult(
      ec, .ecdhKeyExchangeStandardX963SHA256, theirs, parameters as CFDictionary, nil)
    #expect(derived as Data? == (try from("x963")))
  }

  @Test func whatAKeyCannotDoIsAnAppleError() throws {
    let ec = try key(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
    let ecPublic = try #require(SecKeyCopyPublicKey(ec))
    let message = Data("hello".utf8) as CFData
    func status(_ error: Unmanaged<CFError>?) -> Int? { error?.takeRetainedValue().code }

    var error: Unmanaged<CFError>?
    #expect(SecKeyCreateSignature(ec, .rsaSignatureMessagePKCS1v15SHA256, message, &error) == nil)
    #expect(status(error) == Int(errSecUnimplemented))
    #expect(
      SecKeyCreateSignature(ecPublic, .ecdsaSignatureMessageX962SHA256, message, &error) == nil)
    #expect(status(error) == Int(errSecUnimplemented))
    #expect(!SecKeyIsAlgorithmSupported(ecPublic, .sign, .ecdsaSignatureMessageX962SHA256))
    #expect(SecKeyIsAlgorithmSupported(ecPublic, .verify, .ecdsaSignatureMessageX962SHA256))
    #expect(SecKeyIsAlgorithmSupported(ec, .keyExchange, .ecdhKeyExchangeCofactor))
    #expect(!SecKeyIsAlgorithmSupported(ec, .encrypt, .rsaEncryptionOAEPSHA256))
    // An unknown algorithm name, or SHA-224 which is not offered, is unimplemented too.
    #expect(
      !SecKeyIsAlgorithmSupported(
        ec, .sign, SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA224")))
    // A digest of the wrong size is errSecParam.
    let short = Data([1, 2, 3]) as CFData
    #expect(SecKeyCreateSignature(ec, .ecdsaSignatureDigestX962SHA256, short, &error) == nil)
    #expect(status(error) == Int(errSecParam))
    // A signature that does not match is false with errSecVerifyFailed.
    let signature = try #require(
      SecKeyCreateSignature(ec, .ecdsaSignatureMessageX962SHA256, message, nil))
    let other = Data("hellO".utf8) as CFData
    #expect(
      !SecKeyVerifySignature(ecPublic, .ecdsaSignatureMessageX962SHA256, other, signature, &error))
    #expect(status(error) == Int(errSecVerifyFailed))
    #expect(SecCopyErrorMessageString(errSecVerifyFailed, nil)?.contains("verification") == true)
    #expect(SecKeyGetBlockSize(ec) == 32)
    // The X9.63 KDF needs its size.
    #expect(
      SecKeyCopyKeyExchangeResult(
        ec, .ecdhKeyExchangeStandardX963SHA256, ecPublic, [:] as CFDictionary, &error) == nil)
    #expect(status(error) == Int(errSecParam))
  }

  @Test func rsaKeysFromDataAreCheckedByLibgcrypt() throws {
    let rsa = try key(kSecAttrKeyTypeRSA, bits: 2048)
    #expect(SecKeyGetBlockSize(rsa) == 256)
    var data = Array(try #require(SecKeyCopyExternalRepresentation(rsa, nil)) as Data)
    let options: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
      kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
    ]
    #expect(SecKeyCreateWithData(Data(data) as CFData, options as CFDictionary, nil) != nil)
    // One bit changed near the end (in qInv, a CRT value) is well-formed DER but not a key.
    data[data.count - 5] ^= 1
    var error: Unmanaged<CFError>?
    #expect(SecKeyCreateWithData(Data(data) as CFData, options as CFDictionary, &error) == nil)
    #expect(error?.takeRetainedValue().code == Int(errSecParam))
  }
}
