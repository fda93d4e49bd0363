// SPDX-License-Identifier: MIT
//
// What is on disk: no plaintext, private modes, wrong passwords and newer schemas change nothing.

import Foundation
import KeychainCore
import KeychainCrypto
import KeychainStore
import KeychainTesting
import Testing

@Suite struct AtRestTests {
  @Test func noLabelAttributeOrSecretIsOnDiskInPlaintext() throws {
    let fixture = try StoreFixture()
    let markers = [
      "LABELMARKER", "ATTRNAMEMARKER", "ATTRVALUEMARKER", "SECRETMARKER", "COLLLABELMARKER",
    ]
    do {
      let store = try fixture.open()
      try store.createCollection(name: "login", label: "COLLLABELMARKER", password: secure("pw"))
      for n in 0..<50 {
        try store.createItem(
          in: "login", label: "LABELMARKER \(n)",
          attributes: ["ATTRNAMEMARKER": "ATTRVALUEMARKER \(n)"],
          secret: secure("SECRETMARKER \(n)"), replace: false)
      }
      try store.add(try QueryParserShim.internetPassword("SECRETMARKER"), to: "login")
      // Deleted items must not linger either (secure_delete).
      for item in try store.items(in: "login").prefix(10) { try store.deleteItem(item) }
      let files = try fixture.allFileBytes()
      #expect(files.keys.contains("keychain.db-wal"), "checked with the WAL present")
      for (name, bytes) in files {
        for marker in markers {
          #expect(!bytes.contains(Array(marker.utf8)), "\(marker) in \(name)")
        }
      }
    }
    for (name, bytes) in try fixture.allFileBytes() {
      for marker in markers {
        #expect(!bytes.contains(Array(marker.utf8)), "\(marker) in \(name) after close")
      }
    }
  }

  @Test func filesArePrivateAndLooseModesAreRefused() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "L", password: secure("pw"))
    var info = stat()
    stat(fixture.directory, &info)
    #expect(info.st_mode & 0o777 == 0o700)
    for name in try FileManager.default.contentsOfDirectory(atPath: fixture.directory) {
      stat(fixture.directory + "/" + name, &info)
      #expect(info.st_mode & 0o777 == 0o600, "\(name)")
    }
    chmod(fixture.directory, 0o755)
    #expect(throws: StoreError.self) { try fixture.open() }
    chmod(fixture.directory, 0o700)
    chmod(fixture.directory + "/keychain.db", 0o644)
    #expect(throws: StoreError.self) { try fixture.open() }
    chmod(fixture.directory + "/keychain.db", 0o600)
    _ = try fixture.open()
  }

  @Test func aWrongPasswordNeverUnlocksAndChangesNoByte() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "L", password: secure("right"))
    let (item, _) = try store.createItem(
      in: "login", label: "x", attributes: ["a": "b"], secret: secure("s"), replace: false)
    try store.lock("login")
    // The checkpoint after the writes, now, rather than in the middle of the comparison.
    try store.checkpoint()
    let before = try fixture.allFileBytes()
    #expect(throws: StoreError.wrongPassword) {
      try store.unlock("login", password: secure("wrong"))
    }
    #expect(throws: StoreError.wrongPassword) { try store.unlock("login", password: secure("")) }
    #expect(throws: StoreError.wrongPassword) {
      try store.changePassword("login", from: secure("wrong"), to: secure("new"))
    }
    #expect(store.isLocked("login"))
    #expect(try fixture.allFileBytes() == before)
    try store.unlock("login", password: secure("right"))
    #expect(try store.secret(of: item).secret == secure("s"))
  }

  @Test func changingThePasswordRewrapsOneKeyAndSurvivesReopening() throws {
    let fixture = try StoreFixture()
    let item: ItemID
    do {
      let store = try fixture.open()
      try store.createCollection(name: "login", label: "L", password: secure("old"))
      item = try store.createItem(
        in: "login", label: "x", attributes: ["a": "b"], secret: secure("kept"), replace: false
      ).item
      try store.changePassword("login", from: secure("old"), to: secure("new"))
    }
    let reopened = try fixture.open()
    #expect(reopened.isLocked("login"))
    #expect(try reopened.searchItems(["a": "b"]).locked == [item])
    #expect(throws: StoreError.wrongPassword) {
      try reopened.unlock("login", password: secure("old"))
    }
    try reopened.unlock("login", password: secure("new"))
    #expect(try reopened.secret(of: item).secret == secure("kept"))
    #expect(try reopened.collection("login").label == "L")
  }

  @Test func aNewerSchemaIsRefusedAndLeftUntouched() throws {
    let fixture = try StoreFixture()
    do {
      let store = try fixture.open()
      try store.createCollection(name: "login", label: "L", password: secure("pw"))
    }
    // What a future version would leave behind: a migration this one does not know.
    let path = fixture.directory + "/keychain.db"
    let sql = "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future');"
    let result = try runSQLite(path, sql)
    #expect(result == 0)
    let before = try fixture.allFileBytes()["keychain.db"]
    #expect(throws: StoreError.newerSchema(path: path)) { try fixture.open() }
    #expect(try fixture.allFileBytes()["keychain.db"] == before)
    #expect(throws: StoreError.newerSchema(path: path)) { try fixture.open() }
  }

  @Test func aCorruptDatabaseIsRefusedNotReplaced() throws {
    let fixture = try StoreFixture()
    _ = try fixture.open()
    let path = fixture.directory + "/keychain.db"
    for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
    let garbage = Data(repeating: 0x41, count: 8192)
    try garbage.write(to: URL(fileURLWithPath: path))
    #expect(throws: (any Error).self) { try fixture.open() }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
  }
}

/// Runs one SQL statement on a database file through SQLite's own library, via python3's
/// sqlite3 module (no sqlite3 CLI is needed).
func runSQLite(_ path: String, _ sql: String) throws -> Int32 {
  let script =
    "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()"
  return try runCommand("/usr/bin/python3", ["-c", script, path, sql]).status
}

enum QueryParserShim {
  static func internetPassword(_ secret: String) throws -> KeychainCore.NewItem {
    try KeychainCore.QueryParser.add([
      "class": "inet", "acct": "ACCTMARKER", "srvr": "SERVERMARKER",
      "v_Data": secret.data(using: .utf8)!,
    ])
  }
}

@Suite struct EmptyPasswordTests {
  @Test func anEmptyPasswordProtectsLikeAnyOther() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "L", password: secure(""))
    try store.lock("login")
    #expect(throws: StoreError.wrongPassword) { try store.unlock("login", password: secure(" ")) }
    try store.unlock("login", password: secure(""))
    #expect(!store.isLocked("login"))
  }
}
