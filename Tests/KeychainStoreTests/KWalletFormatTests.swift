// SPDX-License-Identifier: MIT
//
// The pieces of KWallet's file format that need no kwalletd: KWallet's own SHA-1 variant, KDE
// 4's key layout by password length, wallet names in file names, and headers refused before any
// decryption. Whole files made by the real kwalletd5 are read in KWalletImportTests.

import Foundation
import KeychainCrypto
import Testing

@testable import KeychainImport

@Suite struct KWalletFormatTests {
  @Test func kwalletsSHA1VariantReadsWordsLittleEndian() {
    // KWallet's own SHA-1 class hashes "abc" to 9006c214…516e.
    let digest = KWalletDigest.sha1(Array("abc".utf8))
    let hex = digest.map { String(format: "%02x", $0) }.joined()
    #expect(digest.count == 20)
    #expect(hex.hasPrefix("9006c214") && hex.hasSuffix("516e"), "\(hex)")
    #expect(hex != SHA1.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined())
    // Several blocks, and a length that puts the bit count in a block of its own.
    #expect(KWalletDigest.sha1([UInt8](repeating: 7, count: 120)).count == 20)
    #expect(
      KWalletDigest.sha1([UInt8](repeating: 7, count: 56))
        != KWalletDigest.sha1([UInt8](repeating: 7, count: 57)))
  }

  @Test(arguments: [(0, 20), (16, 20), (17, 40), (32, 40), (33, 56), (48, 56), (49, 56), (80, 56)])
  func kde4KeysTakeTheirLengthFromThePassword(_ length: Int, _ keySize: Int) throws {
    let password = SecureBytes(copying: [UInt8](repeating: 0x61, count: length))
    #expect(try KWalletFile.legacyKey(password, hash: SHA1.hash).count == keySize)
  }

  @Test func repeatedLabelsLoseKDEsSuffix() {
    #expect(SecretServiceRecords.withoutRepeatSuffix("Web login__0_") == "Web login")
    #expect(SecretServiceRecords.withoutRepeatSuffix("a__12_") == "a")
    #expect(SecretServiceRecords.withoutRepeatSuffix("a__x_") == "a__x_")
    #expect(SecretServiceRecords.withoutRepeatSuffix("a___") == "a___")
    #expect(SecretServiceRecords.withoutRepeatSuffix("plain") == "plain")
  }

  @Test func fileNamesDecodeKWalletsEscapes() {
    #expect(KWalletDirectory.decode("kdewallet") == "kdewallet")
    #expect(KWalletDirectory.decode("my;2Fwallet") == "my/wallet")
    #expect(KWalletDirectory.decode("caf;C3;A9") == "café")
    #expect(KWalletDirectory.decode("odd;Z") == "odd;Z")
  }

  @Test func headersAreCheckedBeforeAnyDecryption() {
    let magic = Array("KWALLET\n\r\0\r\n".utf8)
    func parse(_ bytes: [UInt8]) -> String {
      do {
        _ = try KWalletFile(parsing: bytes, file: "w.kwl")
        return "ok"
      } catch {
        return error.description
      }
    }
    #expect(parse(Array("GnomeKeyring\n\r\0\n".utf8)).contains("not a KWallet file"))
    #expect(
      parse(magic + [0, 1, 2, 2] + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8)).contains("GPG"))
    #expect(parse(magic + [0, 1, 1, 2]).contains("cipher 1"))
    #expect(parse(magic + [0, 7, 3, 2]).contains("version 0.7"))
    // An index that claims more than the file holds.
    #expect(parse(magic + [0, 1, 3, 2] + [0, 0, 0, 9]).contains("damaged at byte 16"))
    // No whole blocks after the index.
    #expect(
      parse(magic + [0, 1, 3, 2] + [0, 0, 0, 0] + [1, 2, 3]).contains("not whole 8-byte blocks"))
    #expect(parse(magic + [0, 1, 3, 2] + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 16)) == "ok")
  }
}
