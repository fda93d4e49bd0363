// SPDX-License-Identifier: MIT
//
// Diffie-Hellman on the RFC 2409 §6.2 "Second Oakley Group" (MODP-1024, g = 2), the group of the
// Secret Service's `dh-ietf1024-sha256-aes128-cbc-pkcs7` session. Public keys and the shared
// secret are unsigned big-endian and always 128 bytes, left-padded with zeros: clients send
// shorter keys (libsecret prints minimal encodings), and a secret that is not left-padded to
// 128 bytes before HKDF silently corrupts data (SECRET-SERVICE.md §1.2).

import CKeychainGcrypt

/// One side of a Diffie-Hellman exchange on the 1024-bit Oakley group 2.
public struct DiffieHellman: Sendable {
  /// Size in bytes of the prime, of every public key we send and of the shared secret.
  public static let byteCount = 128

  /// The prime p of RFC 2409 §6.2.
  public static let prime: [UInt8] = hex(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A0879"
      + "8E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B"
      + "0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF")

  private let privateKey: SecureBytes
  /// Our public key, g^x mod p, 128 bytes.
  public let publicKey: [UInt8]

  /// A fresh key pair with a random 1024-bit private exponent.
  public init() throws {
    try self.init(privateKey: SecureBytes.random(count: Self.byteCount))
  }

  /// A key pair from a given private exponent (unsigned big-endian); for tests.
  public init(privateKey: SecureBytes) throws {
    guard privateKey.count >= 1, privateKey.count <= Self.byteCount else {
      throw CryptoError.invalidInput("private key must be 1 to 128 bytes")
    }
    self.privateKey = privateKey
    let generator = try MPI(unsigned: [2])
    publicKey = try Self.powerModPrime(generator, privateKey).copyBytes()
  }

  /// The shared secret y^x mod p for the peer's public key y, 128 bytes, left-padded.
  ///
  /// Accepts any encoding up to 128 bytes and a 129-byte one with a leading zero; refuses
  /// y ≤ 1 and y ≥ p − 1, whose shared secrets an attacker could predict.
  public func sharedSecret(peerPublicKey: [UInt8]) throws -> SecureBytes {
    var key = ArraySlice(peerPublicKey)
    if key.count == Self.byteCount + 1, key.first == 0 { key = key.dropFirst() }
    guard !key.isEmpty, key.count <= Self.byteCount else {
      throw CryptoError.invalidInput(
        "peer public key must be 1 to 128 bytes, got \(peerPublicKey.count)")
    }
    let peer = try MPI(unsigned: Array(key))
    let prime = try MPI(unsigned: Self.prime)
    let primeMinusOne = MPI(copying: prime)
    gcry_mpi_sub_ui(primeMinusOne.handle, primeMinusOne.handle, 1)
    guard gcry_mpi_cmp_ui(peer.handle, 1) > 0, gcry_mpi_cmp(peer.handle, primeMinusOne.handle) < 0
    else { throw CryptoError.invalidInput("peer public key is out of range") }
    return try Self.powerModPrime(peer, privateKey)
  }

  /// base^exponent mod p, computed in secure memory, as 128 left-padded bytes.
  private static func powerModPrime(_ base: MPI, _ exponent: SecureBytes) throws
    -> SecureBytes
  {
    let x = try exponent.withUnsafeBytes { bytes in
      try MPI(unsigned: bytes, secure: true)
    }
    let prime = try MPI(unsigned: Self.prime)
    let result = MPI(secureBits: UInt32(byteCount * 8))
    gcry_mpi_powm(result.handle, base.handle, x.handle, prime.handle)
    return try result.leftPaddedBytes(count: byteCount)
  }

  private static func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(index, offsetBy: 2)
      bytes.append(UInt8(text[index..<next], radix: 16)!)
      index = next
    }
    return bytes
  }
}
