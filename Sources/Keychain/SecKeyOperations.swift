// SPDX-License-Identifier: MIT
// swift-format-ignore-file: AlwaysUseLowerCamelCase
// (Apple's function names are the API: code written for the Security framework calls them.)
//
// What a `SecKey` does: signatures, RSA encryption and ECDH, named by `SecKeyAlgorithm` as on
// Apple platforms and computed by libgcrypt (KeychainCrypto). The outputs are Apple's formats:
// an RSA signature or ciphertext as long as the modulus, an ECDSA signature DER-encoded (X9.62),
// a key-exchange result the raw X coordinate or X9.63 KDF output. Failures are Apple's codes:
// errSecUnimplemented for an algorithm the key cannot do, errSecParam for wrong input,
// errSecVerifyFailed for a signature that does not verify.

import Foundation
import KeychainCore
import KeychainCrypto

/// What `SecKeyIsAlgorithmSupported` asks about.
public enum SecKeyOperationType: Int, Sendable {
  case sign = 0
  case verify = 1
  case encrypt = 2
  case decrypt = 3
  case keyExchange = 4
}

/// What an algorithm name means, read from its raw string ("algid:sign:RSA:message-PSS:SHA256:…").
enum KeyAlgorithmPlan: Equatable {
  case signature(SignatureScheme, HashFunction, hashesMessage: Bool)
  case encryption(EncryptionScheme)
  case keyExchange(kdf: HashFunction?)

  init?(_ algorithm: SecKeyAlgorithm) {
    let parts = algorithm.rawValue.split(separator: ":").map(String.init)
    func hashNamed(at index: Int) -> HashFunction? {
      index < parts.count ? HashFunction(rawValue: parts[index].lowercased()) : nil
    }
    guard parts.count >= 3, parts[0] == "algid" else { return nil }
    switch (parts[1], parts[2], parts.count > 3 ? parts[3] : "") {
    case ("sign", "RSA", let form) where form.hasSuffix("PKCS1v15") && parts.count == 5:
      guard let hash = hashNamed(at: 4) else { return nil }
      self = .signature(.pkcs1v15, hash, hashesMessage: form.hasPrefix("message"))
    case ("sign", "RSA", let form) where form.hasSuffix("PSS") && parts.count == 7:
      guard let hash = hashNamed(at: 4), hashNamed(at: 5) == hash, let salt = Int(parts[6]),
        salt == hash.byteCount
      else { return nil }
      self = .signature(.pss(saltLength: salt), hash, hashesMessage: form.hasPrefix("message"))
    case ("sign", "ECDSA", let form) where form.hasSuffix("X962") && parts.count == 5:
      guard let hash = hashNamed(at: 4) else { return nil }
      self = .signature(.ecdsa, hash, hashesMessage: form.hasPrefix("message"))
    case ("encrypt", "RSA", "PKCS1") where parts.count == 4:
      self = .encryption(.pkcs1v15)
    case ("encrypt", "RSA", "OAEP") where parts.count == 5:
      guard let hash = hashNamed(at: 4) else { return nil }
      self = .encryption(.oaep(hash))
    case ("keyexchange", "ECDH", _), ("keyexchange", "ECDHC", _):
      // P-256's cofactor is 1, so cofactor ECDH is standard ECDH.
      if parts.count == 3 {
        self = .keyExchange(kdf: nil)
      } else if parts.count == 5, parts[3] == "KDFX963", let hash = hashNamed(at: 4) {
        self = .keyExchange(kdf: hash)
      } else {
        return nil
      }
    default: return nil
    }
  }

  /// Whether `key` can do `operation` with this algorithm.
  func supports(_ operation: SecKeyOperationType, with key: SecKey) -> Bool {
    switch (self, operation) {
    case (.signature(let scheme, _, _), .sign), (.signature(let scheme, _, _), .verify):
      guard operation == .verify || key.isPrivate else { return false }
      return (scheme == .ecdsa) == (key.algorithm == .ec)
    case (.encryption, .encrypt): return key.algorithm == .rsa
    case (.encryption, .decrypt): return key.algorithm == .rsa && key.isPrivate
    case (.keyExchange, .keyExchange): return key.algorithm == .ec && key.isPrivate
    default: return false
    }
  }
}

/// The plan for `algorithm` if `key` can do `operation` with it, else errSecUnimplemented.
private func plan(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm)
  throws(KeychainStatus) -> KeyAlgorithmPlan
{
  guard let plan = KeyAlgorithmPlan(algorithm), plan.supports(operation, with: key) else {
    throw KeychainStatus(
      KeychainStatus.unimplemented.code,
      detail: "\(algorithm.rawValue) is not supported for \(operation) by \(key)")
  }
  return plan
}

/// The digest a signature covers: the given one, or the hash of the given message.
private func digest(_ data: CFData, _ hash: HashFunction, hashesMessage: Bool)
  throws(KeychainStatus) -> [UInt8]
{
  let bytes = Array(data as Data)
  if hashesMessage { return hash.hash(bytes) }
  guard bytes.count == hash.byteCount else {
    throw .param("a \(hash.rawValue) digest has \(hash.byteCount) bytes, not \(bytes.count)")
  }
  return bytes
}

/// Runs a KeychainCrypto call, reporting its failure as errSecParam (wrong input).
private func crypto<T>(_ body: () throws -> T) throws(KeychainStatus) -> T {
  do { return try body() } catch { throw .param("\(error)") }
}

/// Whether `key` can do `operation` with `algorithm`.
public func SecKeyIsAlgorithmSupported(
  _ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm
) -> Bool {
  KeyAlgorithmPlan(algorithm)?.supports(operation, with: key) ?? false
}

/// The block size in bytes: an RSA key's modulus, a P-256 key's coordinate (32).
public func SecKeyGetBlockSize(_ key: SecKey) -> Int {
  (key.sizeInBits + 7) / 8
}

/// Signs `dataToSign` (a message, or a digest for the `…Digest…` algorithms) with a private key.
public func SecKeyCreateSignature(
  _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
  reporting(error) { () throws(KeychainStatus) in
    guard case .signature(let scheme, let hash, let hashesMessage) = try plan(key, .sign, algorithm)
    else { throw .param("not a signature algorithm") }
    let digest = try digest(dataToSign, hash, hashesMessage: hashesMessage)
    let signature = try crypto {
      try key.asymmetricKey.sign(digest: digest, hash: hash, scheme: scheme)
    }
    // ECDSA's r ‖ s becomes X9.62's SEQUENCE { r INTEGER, s INTEGER }.
    let encoded =
      scheme == .ecdsa
      ? DER.sequence(of: [Array(signature.prefix(32)), Array(signature.suffix(32))]) : signature
    return Data(encoded) as NSData
  }
}

/// Whether `signature` is `key`'s over `signedData`; false with errSecVerifyFailed when not.
public func SecKeyVerifySignature(
  _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
  reporting(error) { () throws(KeychainStatus) in
    guard
      case .signature(let scheme, let hash, let hashesMessage) = try plan(key, .verify, algorithm)
    else { throw .param("not a signature algorithm") }
    let digest = try digest(signedData, hash, hashesMessage: hashesMessage)
    var bytes = Array(signature as Data)
    if scheme == .ecdsa {
      // X9.62 DER back to r ‖ s; anything else is a signature that does not verify.
      guard let integers = DER.integers(inSequence: bytes), integers.count == 2,
        integers.allSatisfy({ $0.count <= 32 })
      else {
        throw KeychainStatus(KeychainStatus.verifyFailed.code, detail: "not an X9.62 signature")
      }
      bytes = integers.flatMap { [UInt8](repeating: 0, count: 32 - $0.count) + $0 }
    }
    guard key.publicKey.verify(signature: bytes, digest: digest, hash: hash, scheme: scheme) else {
      throw KeychainStatus(KeychainStatus.verifyFailed.code, detail: "the signature does not match")
    }
    return true
  } ?? false
}

/// Encrypts `plaintext` with an RSA key (its public half).
public func SecKeyCreateEncryptedData(
  _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
  reporting(error) { () throws(KeychainStatus) in
    guard case .encryption(let scheme) = try plan(key, .encrypt, algorithm) else {
      throw .param("not an encryption algorithm")
    }
    let ciphertext = try crypto {
      try key.publicKey.encrypt(Array(plaintext as Data), scheme: scheme)
    }
    return Data(ciphertext) as NSData
  }
}

/// Decrypts `ciphertext` with an RSA private key.
public func SecKeyCreateDecryptedData(
  _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
  reporting(error) { () throws(KeychainStatus) in
    guard case .encryption(let scheme) = try plan(key, .decrypt, algorithm) else {
      throw .param("not an encryption algorithm")
    }
    let plaintext = try crypto {
      try key.asymmetricKey.decrypt(Array(ciphertext as Data), scheme: scheme)
    }
    return Data(plaintext.copyBytes()) as NSData
  }
}

/// ECDH between `privateKey` and `publicKey`: the shared X coordinate, or with a `…X963…`
/// algorithm `kSecKeyKeyExchangeParameterRequestedSize` bytes of the X9.63 KDF over it and
/// `kSecKeyKeyExchangeParameterSharedInfo`.
public func SecKeyCopyKeyExchangeResult(
  _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey,
  _ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
  reporting(error) { () throws(KeychainStatus) in
    guard case .keyExchange(let kdf) = try plan(privateKey, .keyExchange, algorithm) else {
      throw .param("not a key-exchange algorithm")
    }
    guard publicKey.algorithm == .ec else { throw .param("the other key is not a P-256 key") }
    let shared = try crypto {
      try privateKey.asymmetricKey.sharedSecret(with: publicKey.publicRepresentation)
    }
    guard let kdf else { return Data(shared.copyBytes()) as NSData }
    let options = parameters as? [String: Any] ?? [:]
    guard let size = options[kSecKeyKeyExchangeParameterRequestedSize as String] as? Int,
      size > 0, size <= 255 * kdf.byteCount
    else { throw .param("kSecKeyKeyExchangeParameterRequestedSize must be a positive size") }
    let info = (options[kSecKeyKeyExchangeParameterSharedInfo as String] as? Data).map(Array.init)
    return Data(x963KDF(shared, info: info ?? [], size: size, hash: kdf)) as NSData
  }
}

/// How many bytes `SecKeyCopyKeyExchangeResult` derives (an `Int`).
public let kSecKeyKeyExchangeParameterRequestedSize: CFString = "requestedSize"
/// The shared info the X9.63 KDF binds in (`Data`, optional).
public let kSecKeyKeyExchangeParameterSharedInfo: CFString = "sharedInfo"

/// ANSI X9.63 KDF: Hash(Z ‖ counter ‖ info) for counter = 1, 2, …, cut to `size` bytes.
private func x963KDF(_ secret: SecureBytes, info: [UInt8], size: Int, hash: HashFunction)
  -> [UInt8]
{
  var output: [UInt8] = []
  var counter: UInt32 = 1
  let z = secret.copyBytes()
  while output.count < size {
    output += hash.hash(z, withUnsafeBytes(of: counter.bigEndian) { Array($0) }, info)
    counter += 1
  }
  return Array(output.prefix(size))
}
