// SPDX-License-Identifier: MIT
//
// A store made by the previous release opens in the keychaind under test and serves everything
// it held. Tests/Fixtures/store-ab36ffa is keychain.db and index.key as keychaind of ab36ffa
// (schema v4) left them, filled by real clients (Tests/Fixtures/make-store-fixture.sh; its
// README lists every item). The files are copied into a fresh data directory, never opened in
// place: keychaind migrates the copy to the current schema.

import Foundation
import KeychainTesting
import Testing

@Suite(
  .enabled(
    if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/secretstorage"),
    "python3-secretstorage is not installed"))
struct UpgradeTests {
  private static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
  private static let fixture = tests.appendingPathComponent("Fixtures/store-ab36ffa").path
  private static let dumpItems = tests.appendingPathComponent("clients/dump-items.py").path

  private static let loginPassword = "fixture login password"
  private static let workPassword = "fixture work password"
  private static let collections = "/org/freedesktop/secrets/collection/"
  private static let login = collections + "login"
  private static let work = collections + "Work_5f_5f"

  /// One item of the fixture, as its README lists it.
  private struct Item {
    var path: String
    var label: String
    var attributes: [String: String]
    var secret: [UInt8]
    var contentType = "text/plain"
    var created: Int
    var modified: Int
  }

  private static let generic = "org.freedesktop.Secret.Generic"
  private static let items = [
    Item(
      path: login + "/1", label: "Imported: mail",
      attributes: ["service": "smtp.example.com", "user": "björn", "xdg:schema": generic],
      secret: Array("imported secret one".utf8), created: 1_795_683_509, modified: 1_795_683_509),
    Item(
      path: login + "/2", label: "Imported: forum",
      attributes: ["url": "https://forum.example.org", "user": "bob", "xdg:schema": generic],
      secret: Array("imported secret two".utf8), created: 1_795_683_509, modified: 1_795_683_509),
    Item(
      path: login + "/3", label: "Café ☕ – 日本語 🔑",
      attributes: ["port": "993", "service": "imap.example.com", "user": "zoë"],
      secret: Array("hunter2 ü".utf8), created: 1_795_683_511, modified: 1_795_683_511),
    Item(
      path: login + "/4", label: "Binary key ∅",
      attributes: ["kind": "binary", "service": "imap.example.com"],
      secret: [0x00, 0xFF, 0x00, 0x01] + Array("binary".utf8) + [0xFE, 0xFF, 0x0A, 0x00],
      contentType: "application/octet-stream", created: 1_795_683_511, modified: 1_795_683_511),
    Item(
      path: login + "/5", label: "No attributes", attributes: [:],
      secret: Array("an item with no attributes".utf8), created: 1_795_683_511,
      modified: 1_795_683_511),
    Item(
      path: login + "/6", label: "Edited (after)", attributes: ["edited": "yes"],
      secret: Array("new secret ✓".utf8), contentType: "text/plain; charset=utf-8",
      created: 1_795_683_511, modified: 1_795_683_512),
    Item(
      path: login + "/7", label: "Generic: alice",
      attributes: ["account": "alice", "service": "fixture-service", "xdg:schema": generic],
      secret: Array("generic password".utf8), created: 1_795_683_512, modified: 1_795_683_512),
    Item(
      path: work + "/8", label: "VPN", attributes: ["service": "vpn.example.org", "user": "alice"],
      secret: Array("vpn secret".utf8), created: 1_795_683_513, modified: 1_795_683_513),
  ]

  /// A file's bytes and modification time, to show that the fixture was only read.
  private struct FileState: Equatable {
    var bytes: Data?
    var modified: [Int]
  }

  /// Every file of the fixture directory, by name.
  private func fixtureState() throws -> [String: FileState] {
    var state: [String: FileState] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: Self.fixture) {
      let path = Self.fixture + "/" + name
      var info = stat()
      stat(path, &info)
      state[name] = FileState(
        bytes: FileManager.default.contents(atPath: path),
        modified: [info.st_mtim.tv_sec, info.st_mtim.tv_nsec])
    }
    return state
  }

  /// A new data directory (0700) holding a copy of the fixture's store files (0600).
  private func copyOfTheFixture(in temporary: TemporaryDirectory) throws -> String {
    let data = temporary.path + "/keychaind"
    try FileManager.default.createDirectory(
      atPath: data, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    for name in ["keychain.db", "index.key"] {
      try FileManager.default.copyItem(atPath: Self.fixture + "/" + name, toPath: data + "/" + name)
      #expect(chmod(data + "/" + name, 0o600) == 0)
    }
    return data
  }

  private func json(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any], "\(text)")
  }

  private func readAlias(_ daemon: DaemonProcess, _ name: String) throws -> String {
    try daemon.run(
      "gdbus",
      [
        "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path",
        "/org/freedesktop/secrets", "--method", "org.freedesktop.Secret.Service.ReadAlias", name,
      ]
    ).stdout
  }

  /// Every item, with its label, attributes, secret, content type and dates, as SecretStorage
  /// reads them; `login` and the work collection must be unlocked.
  private func expectEveryItem(_ daemon: DaemonProcess) throws {
    let dump = try daemon.run("/usr/bin/python3", [Self.dumpItems])
    #expect(dump.status == 0, "\(dump.stderr)")
    let collections = try #require(try json(dump.stdout)["collections"] as? [String: Any])
    #expect(Set(collections.keys) == [Self.login, Self.work], "\(dump.stdout)")
    var found: [String: [String: Any]] = [:]
    for (path, label) in [(Self.login, "Login"), (Self.work, "Work ✓")] {
      let collection = try #require(collections[path] as? [String: Any], "\(path) is locked")
      #expect(collection["label"] as? String == label)
      let items = try #require(collection["items"] as? [String: [String: Any]])
      found.merge(items) { $1 }
    }
    #expect(Set(found.keys) == Set(Self.items.map(\.path)))
    for item in Self.items {
      let read = try #require(found[item.path], "\(item.path) is missing")
      #expect(read["label"] as? String == item.label, "\(item.path)")
      #expect(read["attributes"] as? [String: String] == item.attributes, "\(item.path)")
      let hex = item.secret.map { String(format: "%02x", $0) }.joined()
      #expect(read["secret"] as? String == hex, "\(item.path)")
      #expect(read["content_type"] as? String == item.contentType, "\(item.path)")
      #expect(read["created"] as? Int == item.created, "\(item.path)")
      #expect(read["modified"] as? Int == item.modified, "\(item.path)")
    }
  }

  /// The daemon under test serves the old store: both collections open with their passwords,
  /// every item reads back byte for byte, searches find them (the old index digests), and the
  /// lock policy and aliases survived. Stopped, the store checks healthy, carries migration v5
  /// and a ledger, and the fixture in the repository is as it was.
  @Test(.readsAnotherProgramsItems) func aStoreOfThePreviousReleaseOpensAndServesEverything()
    async throws
  {
    let before = try fixtureState()
    #expect(Set(before.keys) == ["README.md", "index.key", "keychain.db"])
    let temporary = try TemporaryDirectory(prefix: "upgrade")
    let data = try copyOfTheFixture(in: temporary)
    let daemon = try await DaemonProcess(
      password: Self.loginPassword, arguments: ["--data-dir", data])
    let ctl = Binaries.keychainctl

    // The work collection is locked until its own password opens it; login's does not.
    let unlock = ["unlock", "--collection", Self.work, "--password-stdin"]
    let wrong = try daemon.run(ctl, unlock, stdin: Array((Self.loginPassword + "\n").utf8))
    #expect(wrong.status == 1, "\(wrong.stderr)")
    // A wrong password, not a damaged key record (which no password opens).
    #expect(wrong.stderr.contains("the password is not correct"), "\(wrong.stderr)")
    let right = try daemon.run(ctl, unlock, stdin: Array((Self.workPassword + "\n").utf8))
    #expect(right.status == 0, "\(right.stderr)\n\(daemon.log)")

    try expectEveryItem(daemon)
    // Found by their attributes: the digests the old version wrote still match.
    for item in Self.items where !item.attributes.isEmpty {
      let pairs = item.attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
      let found = try daemon.run(ctl, ["lookup"] + pairs)
      #expect(found.stdoutBytes == item.secret, "\(item.path): \(found.stderr)")
    }
    let zoe = try daemon.run(
      "secret-tool", ["lookup", "service", "imap.example.com", "user", "zoë"])
    #expect(zoe.stdout == "hunter2 ü", "\(zoe.stderr)")

    let policy = try daemon.run(ctl, ["lock-policy", Self.work, "--json"])
    let settings = try json(policy.stdout)
    // The two settings of its own, with their values; the others follow keychaind.conf.
    let unused = try #require(settings["lock-after-unused"] as? [String: Any], "\(policy.stdout)")
    #expect(unused["own"] as? Bool == true && unused["value"] as? Int == 5, "\(unused)")
    let screen = try #require(settings["lock-on-screen-lock"] as? [String: Any])
    #expect(screen["own"] as? Bool == true && screen["value"] as? Bool == false, "\(screen)")
    for name in ["lock-after-idle", "lock-at-logout", "lock-before-sleep"] {
      #expect((settings[name] as? [String: Any])?["own"] as? Bool == false, "\(name)")
    }
    #expect(try readAlias(daemon, "default").contains("'\(Self.login)'"))
    #expect(try readAlias(daemon, "work").contains("'\(Self.work)'"))

    #expect(daemon.terminate() == 0, "\(daemon.log)")
    for (password, collection) in [
      (Self.loginPassword, "login"), (Self.workPassword, "Work_5f_5f"),
    ] {
      let check = try runCommand(
        ctl, ["check", "--data-dir", data, "--password-stdin"], environment: daemon.environment,
        stdin: Array((password + "\n").utf8))
      #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
      #expect(check.stdout.contains("checked: 2 collection(s), 8 item(s)"), "\(check.stdout)")
      #expect(check.stdout.contains("every item of \(collection) decrypted"), "\(check.stdout)")
    }
    try expectCurrentSchema(data)
    #expect(try fixtureState() == before, "the fixture in the repository changed")
  }

  /// A collection the previous release made takes a recovery key (key slots came after it):
  /// the key opens it, and its password still does.
  @Test(.readsAnotherProgramsItems) func aKeyringOfThePreviousReleaseTakesARecoveryKey()
    async throws
  {
    let temporary = try TemporaryDirectory(prefix: "upgrade")
    let data = try copyOfTheFixture(in: temporary)
    let daemon = try await DaemonProcess(
      password: Self.loginPassword, arguments: ["--data-dir", data])
    let ctl = Binaries.keychainctl
    let added = try daemon.run(
      ctl, ["slot", "add", "recovery", "--collection", Self.work],
      stdin: Array((Self.workPassword + "\n").utf8))
    #expect(added.status == 0, "\(added.stderr)\n\(daemon.log)")
    let key = Array(added.stdoutBytes)
    let unlock = try daemon.run(
      ctl, ["unlock", "--recovery", "--collection", Self.work], stdin: key)
    #expect(unlock.status == 0, "\(unlock.stderr)")
    #expect(try daemon.run(ctl, ["lookup", "service", "vpn.example.org"]).stdout == "vpn secret")
    #expect(try daemon.run(ctl, ["lock", "--collection", Self.work]).status == 0)
    let password = try daemon.run(
      ctl, ["unlock", "--collection", Self.work, "--password-stdin"],
      stdin: Array((Self.workPassword + "\n").utf8))
    #expect(password.status == 0, "\(password.stderr)")
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }

  /// The copy now carries every migration up to v5, its commit counter, a ledger beside it,
  /// and still the import record of the old version; read with SQLite's immutable mode, which
  /// writes nothing.
  private func expectCurrentSchema(_ data: String) throws {
    let ledger = try #require(FileManager.default.contents(atPath: data + "/keychain.ledger"))
    #expect(String(decoding: ledger, as: UTF8.self).hasPrefix("keychaind commit ledger 1\n"))
    let script = """
      import sqlite3, sys
      db = sqlite3.connect("file:" + sys.argv[1] + "?immutable=1", uri=True)
      for sql in ["SELECT identifier FROM grdb_migrations ORDER BY rowid",
                  "SELECT name FROM meta WHERE name = 'commit-count'",
                  "SELECT collection, result FROM import_source"]:
          print(" | ".join(" ".join(str(v) for v in row) for row in db.execute(sql)))
      """
    let read = try runCommand(
      "/usr/bin/python3", ["-c", script, data + "/keychain.db"], timeout: .seconds(30))
    #expect(read.status == 0, "\(read.stderr)")
    #expect(
      read.stdout.split(separator: "\n") == [
        "v1-collections-items-index | v2-check-values | v3-import-sources | v4-lock-policies"
          + " | v5-commit-count | v6-access | v7-key-slots",
        "commit-count", "login 2 items",
      ], "\(read.stdout)")
  }
}
