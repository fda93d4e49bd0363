// SPDX-License-Identifier: MIT
//
// The importer's pieces on their own: the digests gnome-keyring's format uses, the textual
// format with the secrets gnome-keyring itself writes wrongly, and the merge rules. Keyrings
// made by the real gnome-keyring are imported end to end in KeychaindTests.GnomeKeyringImportTests.

import Foundation
import KeychainCrypto
import KeychainImport
import KeychainStore
import Testing

struct GnomeKeyringFormatTests {
  @Test func theDigestsAreTheKnownAnswers() throws {
    #expect(MD5.hash(Array("7".utf8)).hex == "8f14e45fceea167a5a36dedd4bea2543")
    // SHA-256 of password and salt, then twice more (computed with Python's hashlib).
    let derived = try KeyDerivation.iteratedSHA256(
      password: secure("pw"), salt: Array(1...8), iterations: 3)
    #expect(
      derived.copyBytes().hex == "22719a76d6c881f56664ae281fee0f1557ba130c1ed13329d9ac65856e40446f")
  }

  /// A textual keyring as gnome-keyring writes one, with a secret holding newlines (written
  /// unescaped: gnome-keyring cannot read this file back), escaped text, a binary secret, a
  /// uint32 attribute and an access entry.
  static let textual = """
    [keyring]
    display-name=Open\\sbox
    ctime=1795389381
    mtime=0
    lock-on-idle=false
    lock-after=false

    [7]
    item-type=0
    display-name=Two\\nlines
    secret=first
    second line
      third=line
    mtime=1795389500
    ctime=1795389400

    [7:attribute0]
    name=service
    type=string
    value=mail

    [7:attribute1]
    name=port
    type=uint32
    value=993

    [7:attribute2]
    name=gkr:compat:uint32:port
    type=string
    value=

    [7:acl0]
    display-name=old app
    path=/usr/bin/old

    [9]
    item-type=1
    display-name=binary
    binary-secret=00FFab
    mtime=1795389600
    ctime=1795389600

    """

  @Test func aTextualKeyringIsReadWithTheSecretsGnomeKeyringCouldNotRead() throws {
    let contents = try TextualKeyring.parse(Array(Self.textual.utf8), file: "box.keyring")
    #expect(contents.label == "Open box" && !contents.encrypted)
    #expect(contents.created == Date(timeIntervalSince1970: 1_795_389_381))
    try #require(contents.items.count == 2)
    let spilled = contents.items[0]
    #expect(spilled.id == 7 && spilled.label == "Two\nlines" && spilled.recovered)
    #expect(
      String(decoding: spilled.secret.copyBytes(), as: UTF8.self)
        == "first\nsecond line\n  third=line")
    #expect(
      spilled.attributes == [
        "service": "mail", "port": "993", "xdg:schema": "org.freedesktop.Secret.Generic",
      ])
    #expect(spilled.accessEntries == 1)
    #expect(spilled.created == Date(timeIntervalSince1970: 1_795_389_400))
    #expect(spilled.modified == Date(timeIntervalSince1970: 1_795_389_500))
    let binary = contents.items[1]
    #expect(binary.secret.copyBytes() == [0x00, 0xFF, 0xAB] && !binary.recovered)
    #expect(binary.attributes == ["xdg:schema": "org.gnome.keyring.NetworkPassword"])
  }

  @Test func damageIsReportedWithItsLineNeverReadAsEmpty() {
    let damaged = Self.textual.replacingOccurrences(of: "[9]", with: "[9")
    #expect(
      throws: KeyringFileError.malformed(
        file: "box.keyring", position: "line 36", reason: "a group header that does not close")
    ) {
      try TextualKeyring.parse(Array(damaged.utf8), file: "box.keyring")
    }
    // Groups with no number (KeyringFuzzer found `[]` trapping): named, never a crash.
    for header in ["[]", "[:attribute0]"] {
      let numberless = Self.textual.replacingOccurrences(of: "[9]", with: header)
      #expect(
        throws: KeyringFileError.malformed(
          file: "box.keyring", position: "line 36", reason: "an unknown group \(header)")
      ) {
        try TextualKeyring.parse(Array(numberless.utf8), file: "box.keyring")
      }
    }
    let truncated = Array(BinaryKeyring.magic) + [0, 0, 0, 0, 0, 0, 0]
    #expect(throws: KeyringFileError.self) {
      try BinaryKeyring(parsing: truncated, file: "login.keyring")
    }
    #expect(
      throws: KeyringFileError.unsupported(
        file: "v1.keyring", reason: "format version 1.0; only 0.0 is read")
    ) {
      try BinaryKeyring(parsing: Array(BinaryKeyring.magic) + [1, 0, 0, 0], file: "v1.keyring")
    }
  }

  @Test func aBackupRoundTripsAndRefusesWhatItCannotTrust() throws {
    let item = BackupItem(
      number: 9, label: "L", contentType: "application/octet-stream",
      created: Date(timeIntervalSince1970: 100), modified: Date(timeIntervalSince1970: 200),
      attributes: ["a": "1"], secret: SecureBytes(copying: [0, 1, 2]))
    let sealed = try Backup.seal(
      [BackupCollection(name: "login", label: "Login", items: [item])],
      passphrase: secure("pp"), parameters: .testing)
    let opened = try Backup.open(sealed, passphrase: secure("pp"), file: "b")
    #expect(opened.count == 1 && opened[0].name == "login" && opened[0].label == "Login")
    let back = try #require(opened.first?.items.first)
    #expect(back.number == 9 && back.label == "L" && back.contentType == "application/octet-stream")
    #expect(back.created == item.created && back.modified == item.modified)
    #expect(back.attributes == ["a": "1"] && back.secret.copyBytes() == [0, 1, 2])
    #expect(throws: KeyringFileError.wrongPassword(file: "b")) {
      try Backup.open(sealed, passphrase: secure("other"), file: "b")
    }
    // A header asking for 4 GiB of Argon2id memory is refused before anything is derived.
    var greedy = sealed
    greedy[21...24] = [0x00, 0x40, 0x00, 0x00]
    #expect(throws: KeyringFileError.self) {
      try Backup.open(greedy, passphrase: secure("pp"), file: "b")
    }
  }

  @Test func mergingTwiceAddsNothingAndTheNewerItemWins() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let source = ImportSource(
      path: "/x/login.keyring", collection: "login", device: 1, inode: 2, size: 3,
      modifiedNanoseconds: 4, sha256: [5])
    let old = Date(timeIntervalSince1970: 1_700_000_000)
    func item(_ label: String, _ secret: String, modified: Date) -> ImportedItem {
      ImportedItem(
        label: label, attributes: ["app": "mail"], secret: secure(secret), preferredID: 42,
        created: old, modified: modified)
    }
    let first = try store.merge([item("Mail", "one", modified: old)], into: "login", source: source)
    #expect(first.added == [ItemID(collection: "login", id: 42)] && first.renumbered == 0)
    let info = try store.itemInfo(ItemID(collection: "login", id: 42))
    #expect(info.created == old && info.modified == old && info.label == "Mail")
    #expect(try store.importSource(path: "/x/login.keyring")?.sameFile(as: source) == true)

    let again = try store.merge([item("Mail", "one", modified: old)], into: "login", source: source)
    #expect(again.added.isEmpty && again.updated.isEmpty && again.unchanged == 1)

    let newer = old.addingTimeInterval(60)
    let changed = try store.merge(
      [item("Mail 2", "two", modified: newer)], into: "login", source: source)
    #expect(changed.updated == [ItemID(collection: "login", id: 42)])
    let (secret, _) = try store.secret(of: ItemID(collection: "login", id: 42))
    #expect(secret.copyBytes() == Array("two".utf8))

    // An older copy changes nothing, and an item missing from the source stays.
    let older = try store.merge(
      [item("Mail 0", "zero", modified: old)], into: "login", source: source)
    #expect(older.unchanged == 1 && older.updated.isEmpty)
    _ = try store.merge([], into: "login", source: source)
    #expect(try store.itemInfo(ItemID(collection: "login", id: 42)).label == "Mail 2")
  }

  @Test func aTakenNumberGivesAnotherAndNothingIsReplaced() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let mine = try store.createItem(
      in: "login", label: "Mine", attributes: ["a": "1"], secret: secure("s"), replace: false)
    let source = ImportSource(
      path: "/x/login.keyring", collection: "login", device: 1, inode: 2, size: 3,
      modifiedNanoseconds: 4, sha256: [5])
    let report = try store.merge(
      [
        ImportedItem(
          label: "Theirs", attributes: ["b": "2"], secret: secure("t"), preferredID: mine.item.id)
      ],
      into: "login", source: source)
    #expect(report.renumbered == 1 && report.added.count == 1 && report.added[0] != mine.item)
    #expect(try store.itemInfo(mine.item).label == "Mine")
    // A taken number does not push the source's later items off theirs.
    let next = mine.item.id + 1
    let many = try store.merge(
      [
        ImportedItem(
          label: "One", attributes: ["c": "1"], secret: secure("1"), preferredID: mine.item.id),
        ImportedItem(
          label: "Two", attributes: ["c": "2"], secret: secure("2"), preferredID: next + 1),
        ImportedItem(
          label: "Three", attributes: ["c": "3"], secret: secure("3"), preferredID: next + 2),
      ], into: "login", source: source)
    #expect(many.renumbered == 1)
    #expect(try store.itemInfo(ItemID(collection: "login", id: next + 1)).label == "Two")
    #expect(try store.itemInfo(ItemID(collection: "login", id: next + 2)).label == "Three")
  }
}

extension [UInt8] {
  fileprivate var hex: String { map { String(format: "%02x", $0) }.joined() }
}
