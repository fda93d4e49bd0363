// SPDX-License-Identifier: MIT
//
// The pieces of the KWallet mapping that need no store: Qt's data stream forms, byte for byte
// as Qt 5 writes them; KWallet's wildcard patterns; kwalletrc's wallet names; and how an entry
// becomes an item's secret and back.

import KWalletProtocol
import KeychainDBus
import Testing

@testable import KWalletFormat

@Suite struct QDataStreamTests {
  @Test func aStringIsItsByteLengthThenUTF16BigEndian() throws {
    #expect(QDataStream.encode("aé") == [0, 0, 0, 4, 0, 0x61, 0, 0xE9])
    // A character outside the BMP takes a surrogate pair.
    let emoji = QDataStream.encode("🔑")
    #expect(emoji == [0, 0, 0, 4, 0xD8, 0x3D, 0xDD, 0x11])
    #expect(try QDataStream.decodeString(emoji) == "🔑")
    // A null QString reads as empty.
    #expect(try QDataStream.decodeString([0xFF, 0xFF, 0xFF, 0xFF]) == "")
  }

  @Test func aMapIsWrittenInDescendingKeyOrderAndReadInAny() throws {
    // As kwalletd5's files hold plasma-nm's maps: key2 before key1.
    let bytes = QDataStream.encode(["key1": "v1", "key2": "v2"])
    let pair: (String) -> [UInt8] = { QDataStream.encode($0) }
    #expect(bytes == [0, 0, 0, 2] + pair("key2") + pair("v2") + pair("key1") + pair("v1"))
    let ascending = [0, 0, 0, 2] + pair("key1") + pair("v1") + pair("key2") + pair("v2")
    #expect(try QDataStream.decodeMap(ascending) == ["key1": "v1", "key2": "v2"])
    #expect(try QDataStream.decodeMap([0, 0, 0, 0]) == [:])
  }

  @Test func malformedFormsAreRefusedWithTheirOffset() {
    #expect(throws: QDataStream.Malformed(offset: 0)) {
      try QDataStream.decodeString([0, 0, 0, 4, 0])
    }
    #expect(throws: QDataStream.Malformed(offset: 0)) {
      try QDataStream.decodeString([0, 0, 0, 3, 0, 1, 2])
    }
    // Trailing bytes.
    #expect(throws: QDataStream.Malformed(offset: 4)) {
      try QDataStream.decodeString([0, 0, 0, 0, 9])
    }
    // A count no input could hold is refused before anything is read.
    #expect(throws: QDataStream.Malformed(offset: 0)) {
      try QDataStream.decodeMap([0x7F, 0, 0, 0])
    }
    #expect(throws: QDataStream.Malformed.self) {
      try QDataStream.decodeMap([0, 0, 0, 1, 0, 0, 0, 2])
    }
  }
}

@Suite struct WildcardPatternTests {
  @Test(arguments: [
    ("*@*", "alice@example.org", true), ("*@*", "alice", false), ("*", "", true),
    ("g?t*", "github", true), ("g?t", "github", false), ("a/b*", "a/bc", true),
    ("[abc]x", "bx", true), ("[abc]x", "dx", false), ("[a-c]*", "c9", true),
    ("[!a-c]*", "c9", false), ("[^a-c]*", "z9", true), ("[ab", "[ab", true),
    ("*.kde.org", "www.kde.org", true), ("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaa", false),
  ])
  func matchesTheWholeKey(_ pattern: String, _ key: String, _ expected: Bool) {
    #expect(WildcardPattern(pattern).matches(key) == expected, "\(pattern) ~ \(key)")
  }
}

@Suite struct KWalletSettingsTests {
  @Test func namesComeFromTheWalletSection() {
    #expect(KWalletSettings(kwalletrc: "") == KWalletSettings())
    let custom = KWalletSettings(
      kwalletrc: """
        [Other]
        Default Wallet=ignored
        [Wallet]
        Default Wallet = Main
        Use One Wallet=false
        """)
    #expect(custom.networkWallet == "Main")
    #expect(custom.localWallet == "localwallet")
    #expect(
      custom.isDefault("Main") && custom.isDefault("localwallet") && !custom.isDefault("kdewallet"))
    let one = KWalletSettings(kwalletrc: "[Wallet]\nDefault Wallet=Main\nLocal Wallet=Local\n")
    #expect(one.localWallet == "Main")
  }
}

@Suite struct KWalletEntryTests {
  @Test func entriesBecomeTheBridgesSecretsAndBack() throws {
    let cases: [(KWalletEntry, String, String)] = [
      (.password("hünter2"), "plaintext", "hünter2"),
      (.stream([0, 0xFF, 1]), "base64", "AP8B"),
      (.map(["b": "2", "a": "x/y"]), "map", #"{"a":"x/y","b":"2"}"#),
    ]
    for (entry, type, secret) in cases {
      #expect(entry.typeValue == type)
      #expect(String(decoding: entry.secret, as: UTF8.self) == secret)
      #expect(KWalletEntry(secret: entry.secret, typeAttribute: type) == entry)
      #expect(
        entry.attributes(folder: "F", key: "K")
          == ["server": "F", "user": "K", "type": type, "xdg:schema": "org.qt.keychain"])
    }
    // What other programs store: raw bytes as `binary`, no type at all, a map with numbers.
    #expect(KWalletEntry(secret: [1, 2], typeAttribute: "binary") == .stream([1, 2]))
    #expect(KWalletEntry(secret: Array("pw".utf8), typeAttribute: nil) == .password("pw"))
    #expect(KWalletEntry(secret: Array(#"{"n":5}"#.utf8), typeAttribute: "map") == .map(["n": "5"]))
    #expect(KWalletEntry(secret: Array("%%".utf8), typeAttribute: "base64") == nil)
    #expect(KWalletEntry(secret: Array("[1]".utf8), typeAttribute: "map") == nil)
  }

  @Test func theWireFormsAreKWalletsOwn() {
    #expect(KWalletEntry.password("pw").wireValue == QDataStream.encode("pw"))
    #expect(KWalletEntry(wireValue: QDataStream.encode("pw"), type: .password) == .password("pw"))
    // A password in plain UTF-8 (not a Qt string) is taken as text.
    #expect(KWalletEntry(wireValue: Array("pw".utf8), type: .password) == .password("pw"))
    #expect(KWalletEntry(wireValue: [1, 2], type: .map) == nil)
    #expect(KWalletEntry(wireValue: [1, 2], type: .unknown) == nil)
  }

  @Test func theDeclarationHasKWalletsOverloads() {
    let methods = KWallet.declaration.description.methods
    #expect(methods.count == 44)
    #expect(methods.filter { $0.name == "close" }.map(\.inputSignature) == ["sb", "ibs"])
    #expect(
      methods.filter { $0.name == "writeEntry" }.map(\.inputSignature) == ["issayis", "issays"])
    #expect(KWallet.declaration.description.signals.filter { $0.name == "walletClosed" }.count == 2)
  }
}
