// SPDX-License-Identifier: MIT
//
// Diffie-Hellman on a fixed MODP group with generator 2: RFC 2409 §6.2's "Second Oakley Group"
// (1024 bits), the group of the Secret Service's `dh-ietf1024-sha256-aes128-cbc-pkcs7` session,
// or RFC 3526's 1536-bit group, which GNOME's system prompter exchanges passwords over (gcr's
// "sx-aes-1"). Public keys and the shared secret are unsigned big-endian and always as long as
// the prime, left-padded with zeros: clients send shorter keys (libsecret prints minimal
// encodings), and a secret that is not left-padded before HKDF silently corrupts data
// (libsecret pads it; a provider that does not breaks one session in 256). gcr strips those
// zeros instead: `minimalBytes` gives its form.

import CKeychainGcrypt

/// One side of a Diffie-Hellman exchange on a MODP group.
public struct DiffieHellman: Sendable {
  /// A MODP group with generator 2, by its prime.
  public struct Group: Sendable, Equatable {
    public let prime: [UInt8]
    /// Size in bytes of the prime, of every public key sent and of the shared secret.
    public var byteCount: Int { prime.count }

    /// RFC 2409 §6.2, 1024 bits: the Secret Service's.
    public static let oakley2 = Group(
      prime: hex(
        "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A0879"
          + "8E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B"
          + "0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF"))

    /// RFC 3526 §2, 1536 bits ("ietf-ike-grp-modp-1536"): gcr's secret exchange.
    public static let modp1536 = Group(
      prime: hex(
        "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A0879"
          + "8E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B"
          + "0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA4836"
          + "1C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804"
          + "F1746C08CA237327FFFFFFFFFFFFFFFF"))
  }

  /// Size in bytes of the Secret Service group's prime (and of its keys and secrets).
  public static let byteCount = Group.oakley2.byteCount

  /// The prime p of RFC 2409 §6.2.
  public static let prime = Group.oakley2.prime

  public let group: Group
  private let privateKey: SecureBytes
  /// Our public key, g^x mod p, as long as the prime.
  public let publicKey: [UInt8]

  /// A fresh key pair with a random private exponent as long as the prime.
  public init(group: Group = .oakley2) throws {
    try self.init(privateKey: SecureBytes.random(count: group.byteCount), group: group)
  }

  /// A key pair from a given private exponent (unsigned big-endian); for tests.
  public init(privateKey: SecureBytes, group: Group = .oakley2) throws {
    guard privateKey.count >= 1, privateKey.count <= group.byteCount else {
      throw CryptoError.invalidInput("private key must be 1 to \(group.byteCount) bytes")
    }
    self.group = group
    self.privateKey = privateKey
    let generator = try MPI(unsigned: [2])
    publicKey = try Self.powerModPrime(generator, privateKey, group).copyBytes()
  }

  /// The shared secret y^x mod p for the peer's public key y, left-padded to the prime's length.
  ///
  /// Accepts any encoding up to the prime's length and one byte longer with a leading zero;
  /// refuses y ≤ 1 and y ≥ p − 1, whose shared secrets an attacker could predict.
  public func sharedSecret(peerPublicKey: [UInt8]) throws -> SecureBytes {
    var key = ArraySlice(peerPublicKey)
    while key.count > group.byteCount, key.first == 0 { key = key.dropFirst() }
    guard !key.isEmpty, key.count <= group.byteCount else {
      throw CryptoError.invalidInput(
        "peer public key must be 1 to \(group.byteCount) bytes, got \(peerPublicKey.count)")
    }
    let peer = try MPI(unsigned: Array(key))
    let prime = try MPI(unsigned: group.prime)
    let primeMinusOne = MPI(copying: prime)
    gcry_mpi_sub_ui(primeMinusOne.handle, primeMinusOne.handle, 1)
    guard gcry_mpi_cmp_ui(peer.handle, 1) > 0, gcry_mpi_cmp(peer.handle, primeMinusOne.handle) < 0
    else { throw CryptoError.invalidInput("peer public key is out of range") }
    return try Self.powerModPrime(peer, privateKey, group)
  }

  /// base^exponent mod p, computed in secure memory, left-padded to the prime's length.
  private static func powerModPrime(_ base: MPI, _ exponent: SecureBytes, _ group: Group) throws
    -> SecureBytes
  {
    let x = try exponent.withUnsafeBytes { bytes in
      try MPI(unsigned: bytes, secure: true)
    }
    let prime = try MPI(unsigned: group.prime)
    let result = MPI(secureBits: UInt32(group.byteCount * 8))
    gcry_mpi_powm(result.handle, base.handle, x.handle, prime.handle)
    return try result.leftPaddedBytes(count: group.byteCount)
  }

  /// `bytes` without its leading zero bytes (at least one byte), as gcr prints numbers.
  public static func minimalBytes(_ bytes: SecureBytes) -> SecureBytes {
    let zeros = bytes.withUnsafeBytes { $0.prefix { $0 == 0 }.count }
    return bytes.slice(min(zeros, max(bytes.count - 1, 0))..<bytes.count)
  }

  fileprivate static func hex(_ text: String) -> [UInt8] {
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

extension DiffieHellman.Group {
  fileprivate static func hex(_ text: String) -> [UInt8] { DiffieHellman.hex(text) }
}
