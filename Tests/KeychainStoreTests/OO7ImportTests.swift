// SPDX-License-Identifier: MIT
//
// oo7's keyrings merged into a store: a home like an oo7 user's (login and work keyrings made
// by Debian's libsecret, the Flatpak portal's key), files under two passwords, damage that must
// leave the store as it was, and the rule for which copy to trust when gnome-keyring's file
// sits beside oo7's migration stamp. The daemon's side (keychaind started with the password)
// is in KeychaindTests.OO7ImportTests.

import Foundation
import KeychainCrypto
import KeychainImport
import KeychainStore
import KeychainTesting
import Testing

@Suite(.enabled(if: V1Fixture.isAvailable, "libsecret-tools is not installed"))
struct OO7ImportTests {
  /// `$XDG_DATA_HOME/keyrings` of a throwaway home, with oo7's `v1` inside.
  final class Home: Sendable {
    let directory: TemporaryDirectory
    var keyrings: String { directory.path + "/keyrings" }
    var v1: String { keyrings + "/v1" }

    init() throws {
      directory = try TemporaryDirectory(prefix: "oo7-home")
      try FileManager.default.createDirectory(atPath: v1, withIntermediateDirectories: true)
    }

    func store(
      _ name: String, _ password: String, _ label: String, _ attributes: [String: String],
      _ secret: String
    ) throws {
      try V1Fixture.store(
        v1 + "/\(name).keyring", password: password, label: label, attributes: attributes,
        secret: Array(secret.utf8))
    }

    /// SHA-256 of every file under the home, to show that nothing was written there.
    func fingerprint() throws -> [String: [UInt8]] {
      var out: [String: [UInt8]] = [:]
      let enumerator = FileManager.default.enumerator(atPath: directory.path)
      while let name = enumerator?.nextObject() as? String {
        let path = directory.path + "/" + name
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
          !isDirectory.boolValue
        else { continue }
        out[name] = SHA256.hash(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
      }
      return out
    }
  }

  static func opened(_ fixture: StoreFixture, login password: String) throws -> KeychainStore {
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure(password))
    try store.setAlias("default", to: "login")
    return store
  }

  /// Every item of `collection` as text: label, sorted attributes, content type, secret.
  static func contents(_ store: KeychainStore, _ collection: String) throws -> [String] {
    try store.items(in: collection).map { id in
      let info = try store.itemInfo(id)
      let (secret, type) = try store.secret(of: id)
      let attributes = info.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
      return "\(info.label)|\(attributes.joined(separator: ","))|\(type)|\(secret.copyBytes())"
    }.sorted()
  }

  @Test func anOO7HomeComesOverAndAgainAddsNothing() throws {
    let home = try Home()
    try home.store("login", "login pw", "Mail", ["service": "mail", "user": "alice"], "hunter2")
    try home.store(
      "login", "login pw", "Secret Portal token for org.example.App",
      ["app_id": "org.example.App", "xdg:content-type": "application/octet-stream"],
      String(repeating: "k", count: 64))
    try home.store("work", "work pw", "VPN", ["service": "vpn"], "tunnel")
    let before = try home.fingerprint()
    let fixture = try StoreFixture()
    let store = try Self.opened(fixture, login: "login pw")
    let importer = OO7Importer(store: store, directory: OO7Directory(path: home.v1))

    let first = importer.run(passwords: [secure("login pw")])
    #expect(first.map(\.status) == [.imported, .pending], "\(first)")
    #expect(first[0].collection == "login" && first[0].added == 2 && first[0].portalKeys == 1)
    #expect(
      try Self.contents(store, "login") == [
        "Mail|service=mail,user=alice|text/plain|\(Array("hunter2".utf8))",
        "Secret Portal token for org.example.App|app_id=org.example.App|application/octet-stream|"
          + "\(Array(repeating: UInt8(ascii: "k"), count: 64))",
      ])

    let second = importer.run(passwords: [secure("work pw")])
    #expect(second.map(\.status) == [.unchanged, .imported], "\(second)")
    #expect(second[1].collection == "work" && second[1].createdCollection)
    #expect(try store.collections().first { $0.name == "work" }?.label == "Work")
    #expect(
      try Self.contents(store, "work") == ["VPN|service=vpn|text/plain|\(Array("tunnel".utf8))"])
    // Locked and opened again with the file's password: it became the collection's.
    try store.lock("work")
    try store.unlock("work", password: secure("work pw"))

    #expect(importer.run(passwords: []).map(\.status) == [.unchanged, .unchanged])
    #expect(try home.fingerprint() == before)
  }

  /// The importers' common face: each lists the files it reads, in the order its outcomes come,
  /// and names itself in each outcome, so the log's "try again with" names the right command
  /// (a v1 file found in gnome-keyring's directory is gnome-keyring's to import again).
  @Test func importersListTheirFilesAndNameThemselvesInOutcomes() throws {
    let home = try Home()
    try home.store("login", "login pw", "Mail", ["service": "mail"], "hunter2")
    try home.store("work", "work pw", "VPN", ["service": "vpn"], "tunnel")
    try FileManager.default.copyItem(
      atPath: home.v1 + "/work.keyring", toPath: home.keyrings + "/work.keyring")
    let fixture = try StoreFixture()
    let store = try Self.opened(fixture, login: "login pw")
    let oo7 = OO7Importer(store: store, directory: OO7Directory(path: home.v1))
    let gnome = GnomeKeyringImporter(store: store, directory: KeyringDirectory(path: home.keyrings))
    #expect(oo7.sources().map(\.name) == ["login", "work"])
    #expect(oo7.sources().map(\.file) == [home.v1 + "/login.keyring", home.v1 + "/work.keyring"])
    #expect(
      gnome.sources() == [
        FoundKeyring(name: "work", file: home.keyrings + "/work.keyring", collection: "work")
      ])

    let outcomes = oo7.run(passwords: [secure("login pw")], dryRun: true, progress: nil)
    #expect(outcomes.map(\.file) == oo7.sources().map(\.file))
    #expect(
      outcomes.map(\.kind) == [.oo7, .oo7] && outcomes.map(\.status) == [.imported, .pending])
    let found = gnome.run(passwords: [], dryRun: true, progress: nil)
    #expect(found.map(\.kind) == [.gnomeKeyring] && found.map(\.status) == [.pending], "\(found)")
    #expect(GnomeKeyringImporter.kind.command == "keychainctl import gnome-keyring")
  }

  @Test func itemsUnderAnotherPasswordWaitAndComeLater() throws {
    let home = try Home()
    try home.store("login", "login pw", "A", ["n": "a"], "1")
    try home.store("login", "old pw", "B", ["n": "b"], "2")
    let fixture = try StoreFixture()
    let store = try Self.opened(fixture, login: "login pw")
    let importer = OO7Importer(store: store, directory: OO7Directory(path: home.v1))
    let first = importer.run(passwords: [secure("login pw")])
    #expect(first.first?.status == .pending && first.first?.added == 1, "\(first)")
    #expect(first.first?.reason?.hasPrefix("item 1 of 2 open with no password") == true)
    // Still waiting, so read again; the other password brings the rest.
    let second = importer.run(passwords: [secure("login pw"), secure("old pw")])
    #expect(second.first?.status == .imported && second.first?.added == 1, "\(second)")
    #expect(importer.run(passwords: []).first?.status == .unchanged)
    #expect(try Self.contents(store, "login").count == 2)
  }

  @Test func aDamagedFileChangesNothing() throws {
    let home = try Home()
    try home.store("login", "login pw", "A", ["n": "a"], "1")
    let file = home.v1 + "/login.keyring"
    let good = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
    let fixture = try StoreFixture()
    let store = try Self.opened(fixture, login: "login pw")
    let importer = OO7Importer(store: store, directory: OO7Directory(path: home.v1))
    var huge = good
    huge.replaceSubrange(0x36..<0x3A, with: [0xFF, 0xFF, 0xFF, 0xFF])
    for bytes in [Array(good.dropLast(3)), good + [0], huge] {
      try Data(bytes).write(to: URL(fileURLWithPath: file))
      let outcome = importer.run(passwords: [secure("login pw")])
      #expect(outcome.first?.status == .failed, "\(outcome)")
      #expect(outcome.first?.reason?.contains("is damaged at byte") == true, "\(outcome)")
      #expect(try store.items(in: "login").isEmpty && store.importSources().isEmpty)
    }
  }

  /// A gnome-keyring `login.keyring` with one item, written by our v0 writer.
  static func writeV0(_ home: Home, secret: String, modified: Date) throws {
    let item = BackupItem(
      number: 1, label: "Mail", contentType: "text/plain", created: modified, modified: modified,
      attributes: ["service": "mail"], secret: secure(secret))
    let bytes = try BinaryKeyringWriter.seal(
      label: "Login", created: modified, modified: modified, items: [item],
      password: secure("login pw"))
    try Data(bytes).write(to: URL(fileURLWithPath: home.keyrings + "/login.keyring"))
  }

  /// gnome-keyring's directory, then oo7's, as keychaind's unlock imports them.
  static func importBoth(_ home: Home, into store: KeychainStore) -> [ImportOutcome] {
    GnomeKeyringImporter(store: store, directory: KeyringDirectory(path: home.keyrings))
      .run(passwords: [secure("login pw")])
      + OO7Importer(store: store, directory: OO7Directory(path: home.v1))
      .run(passwords: [secure("login pw")])
  }

  static func setModified(_ path: String, _ date: Date) throws {
    try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
  }

  @Test func theMigrationStampDecidesWhichCopyToTrust() throws {
    let past = Date(timeIntervalSince1970: 1_700_000_000)
    func run(v1: Bool, stamp: Date?, v0Changed: Date, v0Secret: String = "gnome")
      throws -> ([ImportOutcome], [String])
    {
      let home = try Home()
      try Self.writeV0(home, secret: v0Secret, modified: v0Changed)
      if v1 {
        // oo7's migrated copy: same item, times reset, its content-type attribute added.
        try home.store(
          "login", "login pw", "Mail", ["service": "mail", "xdg:content-type": "text/plain"],
          "gnome")
      }
      if let stamp {
        let path = home.keyrings + "/login.keyring.migrated"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        try Self.setModified(path, stamp)
      }
      try Self.setModified(home.keyrings + "/login.keyring", v0Changed)
      let store = try Self.opened(StoreFixture(), login: "login pw")
      let outcomes = Self.importBoth(home, into: store)
      return (outcomes, try Self.contents(store, "login"))
    }
    let mail = "Mail|service=mail|text/plain|\(Array("gnome".utf8))"
    // Migrated by oo7 0.7, gnome-keyring's file untouched since: oo7's copy only.
    let (migrated, one) = try run(v1: true, stamp: past.addingTimeInterval(60), v0Changed: past)
    #expect(migrated.map(\.status) == [.skipped, .imported] && one == [mail], "\(migrated)")
    #expect(migrated[0].reason?.contains("imported instead") == true)
    // Deleted under oo7 since: not brought back.
    let (deleted, none) = try run(v1: false, stamp: past.addingTimeInterval(60), v0Changed: past)
    #expect(deleted.map(\.status) == [.skipped] && none.isEmpty, "\(deleted)")
    #expect(deleted[0].reason?.contains("deleted under oo7") == true)
    // gnome-keyring wrote its file after the stamp, or there is no stamp: both, merged, and the
    // same item twice is one item (with the schema gnome-keyring showed for its type, which
    // oo7's migration dropped).
    let typed = "Mail|service=mail,xdg:schema=org.freedesktop.Secret.Generic|text/plain|"
    for stamp in [past.addingTimeInterval(-60), nil] as [Date?] {
      let (both, merged) = try run(v1: true, stamp: stamp, v0Changed: past)
      #expect(
        both.map(\.status) == [.imported, .imported]
          && merged == [typed + "\(Array("gnome".utf8))"], "\(both) \(merged)")
      #expect(both[1].added == 0 && both[1].updated == 0 && both[1].unchanged == 1)
    }
    // Split brain: gnome-keyring changed the item after oo7 migrated it. The newer one wins.
    let later = Date().addingTimeInterval(3600)
    let (split, newer) = try run(
      v1: true, stamp: Date(), v0Changed: later, v0Secret: "changed in gnome-keyring")
    #expect(split.map(\.status) == [.imported, .imported], "\(split)")
    #expect(newer == [typed + "\(Array("changed in gnome-keyring".utf8))"], "\(newer)")
  }

  @Test func aV1FileInGnomeKeyringsDirectoryIsImportedToo() throws {
    let home = try Home()
    try V1Fixture.store(
      home.keyrings + "/default.keyring", password: "login pw", label: "Host",
      attributes: ["host": "yes"], secret: Array("s".utf8))
    let store = try Self.opened(StoreFixture(), login: "login pw")
    let outcomes = GnomeKeyringImporter(
      store: store, directory: KeyringDirectory(path: home.keyrings)
    ).run(passwords: [secure("login pw")])
    #expect(outcomes.map(\.status) == [.imported] && outcomes[0].collection == "default")
    #expect(try Self.contents(store, "default") == ["Host|host=yes|text/plain|\(Array("s".utf8))"])
  }
}

extension OO7ImportTests {
  /// An item with no attributes of its own meets its gnome-keyring copy too (searching for no
  /// attributes would find every item: each schema is looked up instead).
  @Test func anItemWithNoAttributesIsOneItemAcrossBothCopies() throws {
    let home = try Home()
    let note = BackupItem(
      number: 1, label: "Note", contentType: "text/plain",
      created: Date(timeIntervalSince1970: 1_700_000_000),
      modified: Date(timeIntervalSince1970: 1_700_000_000), attributes: [:], secret: secure("n"))
    let v0 = try BinaryKeyringWriter.seal(
      label: "Login", created: note.created, modified: note.modified, items: [note],
      password: secure("login pw"))
    try Data(v0).write(to: URL(fileURLWithPath: home.keyrings + "/login.keyring"))
    let v1 = try V1Writer.seal([note], password: secure("login pw"))
    try Data(v1).write(to: URL(fileURLWithPath: home.v1 + "/login.keyring"))
    let store = try Self.opened(StoreFixture(), login: "login pw")
    let outcomes = Self.importBoth(home, into: store)
    #expect(outcomes.map(\.status) == [.imported, .imported], "\(outcomes)")
    #expect(outcomes[1].unchanged == 1 && outcomes[1].added == 0, "\(outcomes)")
    #expect(
      try Self.contents(store, "login") == [
        "Note|xdg:schema=org.freedesktop.Secret.Generic|text/plain|\(Array("n".utf8))"
      ])
  }
}
