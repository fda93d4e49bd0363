// SPDX-License-Identifier: MIT
//
// The Secret Service DH session's key agreement, with its interop traps (see DiffieHellman.swift).

import KeychainCrypto
import Testing

@Suite struct DiffieHellmanTests {
  @Test func bothSidesAgreeOnA128ByteSecret() throws {
    let alice = try DiffieHellman()
    let bob = try DiffieHellman()
    #expect(alice.publicKey.count == 128 && bob.publicKey.count == 128)
    let fromAlice = try alice.sharedSecret(peerPublicKey: bob.publicKey)
    let fromBob = try bob.sharedSecret(peerPublicKey: alice.publicKey)
    #expect(fromAlice == fromBob)
    #expect(fromAlice.count == 128)
  }

  @Test func smallValuesAreLeftPaddedNotTruncatedOrRightPadded() throws {
    // x = 1: the public key is g = 2, which must travel as 127 zeros and a 2.
    let one = try DiffieHellman(privateKey: SecureBytes(copying: [1]))
    #expect(one.publicKey == [UInt8](repeating: 0, count: 127) + [2])
    // The shared secret with y = 5 is 5, padded the same way before it reaches HKDF.
    #expect(
      try one.sharedSecret(peerPublicKey: [5]).copyBytes() == [UInt8](repeating: 0, count: 127) + [
        5
      ])
  }

  @Test func shortAndZeroPrefixedPeerKeysGiveTheSameSecret() throws {
    let us = try DiffieHellman()
    let peer = try DiffieHellman()
    let expected = try us.sharedSecret(peerPublicKey: peer.publicKey)
    // libsecret sends minimal encodings: strip leading zeros as it would.
    let minimal = Array(peer.publicKey.drop { $0 == 0 })
    #expect(try us.sharedSecret(peerPublicKey: minimal) == expected)
    // Some clients send the key with a sign byte: 129 bytes with a leading zero.
    #expect(try us.sharedSecret(peerPublicKey: [0] + peer.publicKey) == expected)
    // A key whose first byte is zero is common (1 in 256): drop it and pad back.
    let short = Array(peer.publicKey.dropFirst(3))
    let padded = [UInt8](repeating: 0, count: 3) + short
    #expect(
      try us.sharedSecret(peerPublicKey: short) == (try us.sharedSecret(peerPublicKey: padded)))
  }

  @Test func degenerateAndOversizedPeerKeysAreRefused() throws {
    let us = try DiffieHellman()
    let pMinusOne = Array(DiffieHellman.prime.dropLast()) + [DiffieHellman.prime.last! - 1]
    for bad in [
      [], [0], [1], pMinusOne, DiffieHellman.prime, [UInt8](repeating: 0xFF, count: 128),
      [1] + [UInt8](repeating: 0, count: 128), [UInt8](repeating: 7, count: 200),
    ] {
      #expect(throws: CryptoError.self, "\(bad.count)-byte key") {
        try us.sharedSecret(peerPublicKey: bad)
      }
    }
  }

  @Test func theSessionPathHKDFThenAESCBCRoundTrips() throws {
    // What a `dh-ietf1024-sha256-aes128-cbc-pkcs7` session does on both ends.
    let service = try DiffieHellman()
    let client = try DiffieHellman()
    let serviceKey = try HKDF.deriveKey(
      inputKey: try service.sharedSecret(peerPublicKey: client.publicKey), length: 16)
    let clientKey = try HKDF.deriveKey(
      inputKey: try client.sharedSecret(peerPublicKey: service.publicKey), length: 16)
    #expect(serviceKey == clientKey)
    let iv = Random.bytes(count: 16)
    let secret = Array("correct horse battery staple".utf8)
    let ciphertext = try AESCBC.encrypt(secret, key: serviceKey, iv: iv)
    #expect(try AESCBC.decrypt(ciphertext, key: clientKey, iv: iv).copyBytes() == secret)
  }
}
