// SPDX-License-Identifier: MIT
//
// oo7's and libsecret's v1 keyring files, read and written: files made at test time by
// Debian's libsecret (`secret-tool` with its file backend), every kind of damage derived
// from them byte by byte, the unencrypted flavour written by GLib's own serialiser, and our
// writer's files read back by libsecret. The importer end to end is in
// KeychaindTests.OO7ImportTests.

import Foundation
import KeychainCrypto
import KeychainImport
import KeychainStore
import KeychainTesting
import Testing

@Suite(.enabled(if: V1Fixture.isAvailable, "libsecret-tools is not installed"))
struct V1FormatTests {
  static let password = "fixture-password"

  /// A file like a libsecret user's: six items covering what a secret can be.
  static func basic(in directory: TemporaryDirectory) throws -> String {
    let file = directory.path + "/basic.keyring"
    let store = { (label: String, attributes: [String: String], secret: [UInt8]) in
      try V1Fixture.store(
        file, password: password, label: label, attributes: attributes, secret: secret)
    }
    try store(
      "Mail", ["xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "alice"],
      Array("hunter2".utf8))
    try store("Ünïcødé ✓", ["service": "naïve", "kind": "multi"], Array("line 1\nline 2 ✓".utf8))
    try store("Binary", ["kind": "binary"], [0x00, 0x01, 0x02, 0xFF, 0xFE])
    try store("Empty", ["kind": "empty"], [])
    try store("Blank attribute", ["kind": "blank", "note": ""], Array("x".utf8))
    try store("Old label", ["kind": "replaced"], Array("old".utf8))
    // One second later, so that the replaced item's modified time is after its created time.
    Thread.sleep(forTimeInterval: 1.1)
    try store("New label", ["kind": "replaced"], Array("new".utf8))
    return file
  }

  static func read(_ file: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: file)))
  }

  static func keyring(_ bytes: [UInt8]) throws -> V1Keyring {
    try V1Keyring(parsing: bytes, file: "test.keyring")
  }

  @Test func libsecretsFileOpensFieldForField() throws {
    let directory = try TemporaryDirectory()
    let file = try Self.basic(in: directory)
    let contents = try Self.keyring(Self.read(file)).open(password: secure(Self.password))
    #expect(contents.unopened.isEmpty && contents.damaged.isEmpty && contents.encrypted)
    let byKind = Dictionary(
      uniqueKeysWithValues: contents.items.map { ($0.attributes["kind"] ?? "mail", $0) })
    #expect(byKind.count == 6)
    #expect(byKind["mail"]?.label == "Mail")
    #expect(
      byKind["mail"]?.attributes == [
        "xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "alice",
      ])
    #expect(byKind["mail"]?.secret.copyBytes() == Array("hunter2".utf8))
    #expect(
      byKind["multi"]?.label == "Ünïcødé ✓" && byKind["multi"]?.attributes["service"] == "naïve")
    #expect(byKind["multi"]?.secret.copyBytes() == Array("line 1\nline 2 ✓".utf8))
    #expect(byKind["binary"]?.secret.copyBytes() == [0x00, 0x01, 0x02, 0xFF, 0xFE])
    #expect(byKind["empty"]?.secret.count == 0)
    #expect(byKind["blank"]?.attributes["note"] == "")
    let replaced = try #require(byKind["replaced"])
    #expect(replaced.label == "New label" && replaced.secret.copyBytes() == Array("new".utf8))
    #expect(replaced.created < replaced.modified)
    // libsecret writes no content type: text, as its clients saw it; every index matches.
    #expect(contents.items.allSatisfy { $0.contentType == "text/plain" && $0.indexMatches })
  }

  @Test func aWrongPasswordOpensNothingAndMixedKeysAreNamed() throws {
    let directory = try TemporaryDirectory()
    let file = directory.path + "/mixed.keyring"
    try V1Fixture.store(file, password: "one", label: "A", attributes: ["n": "a"], secret: [1])
    try V1Fixture.store(file, password: "one", label: "B", attributes: ["n": "b"], secret: [2])
    // libsecret never checks the password it writes with.
    try V1Fixture.store(file, password: "two", label: "C", attributes: ["n": "c"], secret: [3])
    let keyring = try Self.keyring(Self.read(file))
    #expect(throws: KeyringFileError.wrongPassword(file: "test.keyring")) {
      try keyring.open(password: secure("three"))
    }
    let one = try keyring.open(password: secure("one"))
    #expect(one.items.map(\.label) == ["A", "B"] && one.unopened == [2])
    let rest = try keyring.open(password: secure("two"), positions: one.unopened)
    #expect(rest.items.map(\.label) == ["C"] && rest.unopened.isEmpty)
  }

  @Test func damageIsNamedWithItsByteAndNothingIsDerivedFromAnAbsurdCount() throws {
    let directory = try TemporaryDirectory()
    let good = try Self.read(Self.basic(in: directory))
    func damaged(_ bytes: [UInt8]) -> KeyringFileError? {
      do {
        _ = try Self.keyring(bytes)
        return nil
      } catch { return error as? KeyringFileError }
    }
    // Framing offsets sit at the end: a cut or an added byte spoils the whole file.
    for bytes in [Array(good.prefix(good.count * 6 / 10)), good + [0]] {
      guard case .malformed(_, let position, _) = damaged(bytes) else {
        Issue.record("\(String(describing: damaged(bytes)))")
        continue
      }
      #expect(position.hasPrefix("byte "))
    }
    // Header fields at their offsets for a 32-byte salt: salt size, iterations.
    var salt = good
    salt[18] = 31
    #expect(damaged(salt)?.description.contains("salt size") == true)
    for iterations in [[0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 0]] as [[UInt8]] {
      var bytes = good
      bytes.replaceSubrange(0x36..<0x3A, with: iterations)
      #expect(damaged(bytes)?.description.contains("key derivation iterations") == true)
    }
    var version = good
    version[17] = 1
    #expect(
      damaged(version)
        == .unsupported(file: "test.keyring", reason: "format version 1.1; only 1.0 is read here"))
    // A flipped byte inside one item's blob: that item alone stays closed.
    var flipped = good
    flipped[good.count - 40] ^= 0x01
    let contents = try Self.keyring(flipped).open(password: secure(Self.password))
    #expect(contents.items.count == 5 && contents.unopened.count == 1)
  }

  @Test func oo7sUnencryptedFlavourIsRecognised() throws {
    let directory = try TemporaryDirectory()
    let file = directory.path + "/plain.keyring"
    // Written with GLib's own serialiser, as oo7 lays it out: the blob is the plaintext item
    // and the index holds the values.
    let script = """
      import sys
      from gi.repository import GLib
      def item(attributes, label, secret):
          plain = GLib.Variant("(a{ss}sttay)", (attributes, label, 1700000000, 1700000060, secret))
          index = {k: list(v.encode()) for k, v in attributes.items()}
          return (index, list(plain.get_data_as_bytes().get_data()))
      items = [item({"app": "one", "xdg:content-type": "application/octet-stream"}, "One", b"\\x00\\x01"),
               item({"app": "two"}, "Two", b"two")]
      body = GLib.Variant("(uayutua(a{say}ay))", (32, [0] * 32, 100000, 1700000000, 2, items))
      data = b"GnomeKeyring\\n\\r\\0\\n\\x01\\x00" + body.get_data_as_bytes().get_data()
      open(sys.argv[1], "wb").write(data)
      """
    let result = try runCommand("/usr/bin/python3", ["-c", script, file])
    #expect(result.status == 0, "\(result.stderr)")
    let keyring = try Self.keyring(Self.read(file))
    let contents = try #require(keyring.openUnencrypted())
    #expect(!contents.encrypted && contents.items.map(\.label) == ["One", "Two"])
    #expect(contents.items[0].contentType == "application/octet-stream")
    #expect(contents.items[0].attributes == ["app": "one"])
    #expect(contents.items[0].secret.copyBytes() == [0, 1])
    #expect(contents.items[1].modified == Date(timeIntervalSince1970: 1_700_000_060))
    #expect(throws: KeyringFileError.self) { try keyring.open(password: secure("any")) }
    // An encrypted file is not taken for one.
    #expect(try Self.keyring(Self.read(Self.basic(in: directory))).openUnencrypted() == nil)
  }

  @Test func anItemWhoseMACHoldsButWhoseContentIsNotAnItemIsDamageNotAWrongPassword() throws {
    let directory = try TemporaryDirectory()
    let file = directory.path + "/buggy.keyring"
    // A writer's bug, written with Python's cryptography and GLib: item 1's content is
    // encrypted and authenticated under the right key, but it is not an item.
    let script = """
      import hashlib, hmac, os, sys
      from cryptography.hazmat.primitives import padding
      from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
      from gi.repository import GLib
      salt = os.urandom(32)
      key = hashlib.pbkdf2_hmac("sha256", b"pw", salt, 1000, 16)
      def sealed(plain, attributes):
          padder = padding.PKCS7(128).padder()
          data = padder.update(plain) + padder.finalize()
          iv = os.urandom(16)
          enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
          blob = enc.update(data) + enc.finalize() + iv
          blob += hmac.new(key, blob, hashlib.sha256).digest()
          index = {k: list(hmac.new(key, v.encode(), hashlib.sha256).digest()) for k, v in attributes.items()}
          return (index, list(blob))
      good = GLib.Variant("(a{ss}sttay)", ({"n": "a"}, "Good", 1, 2, b"s")).get_data_as_bytes().get_data()
      items = [sealed(good, {"n": "a"}), sealed(b"not an item at all", {"n": "b"})]
      body = GLib.Variant("(uayutua(a{say}ay))", (32, list(salt), 1000, 0, 2, items))
      open(sys.argv[1], "wb").write(b"GnomeKeyring\\n\\r\\0\\n\\x01\\x00" + body.get_data_as_bytes().get_data())
      """
    let result = try runCommand("/usr/bin/python3", ["-c", script, file])
    #expect(result.status == 0, "\(result.stderr)")
    let contents = try Self.keyring(Self.read(file)).open(password: secure("pw"))
    #expect(contents.items.map(\.label) == ["Good"] && contents.unopened.isEmpty)
    #expect(contents.damaged.map(\.index) == [1], "\(contents.damaged)")
  }

  static func exported() -> [BackupItem] {
    [
      BackupItem(
        number: 3, label: "Web ✓", contentType: "text/plain",
        created: Date(timeIntervalSince1970: 1_700_000_000),
        modified: Date(timeIntervalSince1970: 1_700_000_100),
        attributes: ["service": "web", "user": "bob"], secret: secure("pässword")),
      BackupItem(
        number: 4, label: "Key", contentType: "application/octet-stream",
        created: Date(timeIntervalSince1970: 1_700_000_000),
        modified: Date(timeIntervalSince1970: 1_700_000_000), attributes: ["kind": "key"],
        secret: SecureBytes(copying: [0, 1, 2, 255] + Array(repeating: 7, count: 300))),
    ]
  }

  @Test func ourV1FileIsReadByLibsecretAndByUs() throws {
    let directory = try TemporaryDirectory()
    let file = directory.path + "/out.keyring"
    let bytes = try V1Writer.seal(Self.exported(), password: secure("export pw"))
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    #expect(
      try V1Fixture.lookup(file, password: "export pw", attributes: ["user": "bob"])
        == Array("pässword".utf8))
    #expect(
      try V1Fixture.lookup(file, password: "export pw", attributes: ["kind": "key"])
        == [0, 1, 2, 255] + Array(repeating: 7, count: 300))
    let contents = try Self.keyring(bytes).open(password: secure("export pw"))
    #expect(contents.items.count == 2 && contents.items.allSatisfy(\.indexMatches))
    #expect(
      contents.items[0].label == "Web ✓"
        && contents.items[0].attributes == ["service": "web", "user": "bob"])
    #expect(contents.items[0].created == Date(timeIntervalSince1970: 1_700_000_000))
    #expect(contents.items[0].modified == Date(timeIntervalSince1970: 1_700_000_100))
    #expect(contents.items[1].contentType == "application/octet-stream")
  }

  @Test func ourV0FileIsReadByTheV0Reader() throws {
    let bytes = try BinaryKeyringWriter.seal(
      label: "Work", created: Date(timeIntervalSince1970: 1_600_000_000),
      modified: Date(timeIntervalSince1970: 1_700_000_100), items: Self.exported(),
      password: secure("export pw"))
    let keyring = try BinaryKeyring(parsing: bytes, file: "work.keyring")
    #expect(keyring.label == "Work" && keyring.entries.map(\.id) == [3, 4])
    #expect(throws: KeyringFileError.wrongPassword(file: "work.keyring")) {
      try keyring.open(password: secure("wrong"))
    }
    let contents = try keyring.open(password: secure("export pw"))
    #expect(contents.items.map(\.label) == ["Web ✓", "Key"])
    #expect(
      contents.items[1].secret.copyBytes() == [0, 1, 2, 255] + Array(repeating: 7, count: 300))
    #expect(contents.items[0].attributes["user"] == "bob")
    #expect(contents.items[0].modified == Date(timeIntervalSince1970: 1_700_000_100))
  }
}
