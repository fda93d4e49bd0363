// SPDX-License-Identifier: MIT
//
// A `CipherKey` reuses one libgcrypt handle across operations, reset between them. Reuse must
// never carry state from one operation into the next: each result equals a fresh handle's,
// after a failure too, and threads sharing the key each get a handle of their own.

import Dispatch
import KeychainCrypto
import Synchronization
import Testing

@Suite struct CipherKeyTests {
  private let gcmBytes = SecureBytes(copying: Array(0..<32).map(UInt8.init))
  private let cbcBytes = SecureBytes(copying: Array(100..<116).map(UInt8.init))

  private func plain(_ secure: SecureBytes) -> [UInt8] { secure.withUnsafeBytes { Array($0) } }

  @Test func aKeptHandleGivesWhatAFreshOneGives() throws {
    let key = try CipherKey.gcm(gcmBytes)
    for index in 0..<5 {
      let message = Array("message \(index)".utf8)
      let nonce = Array(repeating: UInt8(index), count: AESGCM.nonceSize)
      let kept = try AESGCM.seal(message, key: key, associatedData: [1, 2], nonce: nonce)
      let fresh = try AESGCM.seal(message, key: gcmBytes, associatedData: [1, 2], nonce: nonce)
      #expect(kept == fresh)
      #expect(plain(try AESGCM.open(fresh, key: key, associatedData: [1, 2])) == message)
    }
    let cbc = try CipherKey.cbc(cbcBytes)
    for index in 0..<3 {
      let iv = Array(repeating: UInt8(index), count: AESCBC.blockSize)
      let message = Array(repeating: UInt8(index), count: 20 + index)
      let kept = try AESCBC.encrypt(message, key: cbc, iv: iv)
      #expect(kept == (try AESCBC.encrypt(message, key: cbcBytes, iv: iv)))
      #expect(plain(try AESCBC.decrypt(kept, key: cbc, iv: iv)) == message)
    }
  }

  @Test func aFailedOpenLeavesNothingForTheNext() throws {
    let key = try CipherKey.gcm(gcmBytes)
    let sealed = try AESGCM.seal(Array("kept".utf8), key: key)
    var tampered = sealed
    tampered[AESGCM.nonceSize] ^= 1
    #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(tampered, key: key) }
    #expect(throws: CryptoError.authenticationFailed) {
      try AESGCM.open(sealed, key: key, associatedData: [9])
    }
    #expect(plain(try AESGCM.open(sealed, key: key)) == Array("kept".utf8))
    #expect(throws: CryptoError.self) { try CipherKey.gcm(cbcBytes) }
    #expect(throws: CryptoError.self) { try CipherKey.cbc(gcmBytes) }
  }

  @Test func threadsSharingAKeyEachGetAHandle() throws {
    let key = try CipherKey.gcm(gcmBytes)
    let failures = Mutex(0)
    DispatchQueue.concurrentPerform(iterations: 64) { index in
      let message = Array(repeating: UInt8(index), count: 1000 + index)
      let opened = try? AESGCM.open(AESGCM.seal(message, key: key), key: key)
      if opened.map(plain) != message { failures.withLock { $0 += 1 } }
    }
    #expect(failures.withLock { $0 } == 0)
  }
}
