// SPDX-License-Identifier: MIT
//
// keychaind never starts an empty keyring over an existing one: a store whose files are
// damaged, cut short, missing a part or mismatched is refused at start-up with exit status 6
// and a message naming the file, and not one byte of it changes. Each case on the real binary.

import Foundation
import KeychainTesting
import Testing

@Suite struct DamagedStoreTests {
  /// A store holding a few items, stopped cleanly (SIGTERM) or killed (SIGKILL, which leaves
  /// the latest changes in the write-ahead log).
  private func store(items: Int = 5, cleanly: Bool) async throws -> DaemonProcess {
    let daemon = try await DaemonProcess()
    for index in 0..<items {
      let stored = try daemon.run(
        "secret-tool", ["store", "--label=item \(index)", "damage", String(index)],
        stdin: Array("secret \(index)".utf8))
      #expect(stored.status == 0, "\(stored.stderr)")
    }
    if cleanly { #expect(daemon.terminate() == 0) } else { daemon.kill(with: SIGKILL) }
    return daemon
  }

  private func overwrite(_ path: String, at offset: UInt64, with bytes: [UInt8]) throws {
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    try handle.seek(toOffset: offset)
    try handle.write(contentsOf: Data(bytes))
    try handle.close()
  }

  private func flip(_ path: String, at offset: UInt64) throws {
    let bytes = try #require(FileManager.default.contents(atPath: path))
    try overwrite(path, at: offset, with: [bytes[Int(offset)] ^ 0x01])
  }

  @Test func aCleanStopLeavesTheWholeStoreInTheDatabaseFile() async throws {
    let daemon = try await store(cleanly: true)
    // What restoring a backup of keychain.db alone gives.
    try? FileManager.default.removeItem(atPath: daemon.storeFile("keychain.db-wal"))
    try await daemon.start()
    for index in 0..<5 {
      let found = try daemon.run("secret-tool", ["lookup", "damage", String(index)])
      #expect(found.stdout == "secret \(index)")
    }
  }

  @Test func anEmptyDatabaseFileIsRefused() async throws {
    let daemon = try await store(cleanly: true)
    #expect(truncate(daemon.storeFile("keychain.db"), 0) == 0)
    try daemon.expectRefusal(naming: "keychain.db")
  }

  @Test func aDatabaseCutShortIsRefused() async throws {
    let daemon = try await store(cleanly: true)
    let size =
      try FileManager.default.attributesOfItem(atPath: daemon.storeFile("keychain.db"))[
        .size] as! Int
    #expect(truncate(daemon.storeFile("keychain.db"), off_t(size / 2 + 100)) == 0)
    try daemon.expectRefusal(naming: "keychain.db")
  }

  @Test func aFileThatIsNotADatabaseIsRefused() async throws {
    let daemon = try await store(cleanly: true)
    try overwrite(daemon.storeFile("keychain.db"), at: 0, with: Array("not a database!!".utf8))
    try daemon.expectRefusal(naming: "keychain.db")
  }

  @Test func aDamagedLogHeaderIsRefused() async throws {
    let daemon = try await store(cleanly: false)
    try flip(daemon.storeFile("keychain.db-wal"), at: 17)  // a salt byte
    try daemon.expectRefusal(naming: "keychain.db-wal")
  }

  @Test func aDamagedFrameWithCommitsAfterItIsRefused() async throws {
    let daemon = try await store(items: 8, cleanly: false)
    // Inside the first frame's page.
    try flip(daemon.storeFile("keychain.db-wal"), at: 32 + 24 + 100)
    try daemon.expectRefusal(naming: "keychain.db-wal")
  }

  @Test func aMissingIndexKeyIsRefused() async throws {
    let daemon = try await store(cleanly: true)
    #expect(unlink(daemon.storeFile("index.key")) == 0)
    try daemon.expectRefusal(naming: "index.key")
  }

  @Test func anIndexKeyOfAnotherStoreIsRefused() async throws {
    let daemon = try await store(cleanly: true)
    try overwrite(
      daemon.storeFile("index.key"), at: 0, with: (0..<32).map { _ in .random(in: 0...255) })
    try daemon.expectRefusal(naming: "index.key")
  }

  @Test func anIndexKeyWithoutItsDatabaseIsRefused() async throws {
    let daemon = try await store(cleanly: true)
    #expect(unlink(daemon.storeFile("keychain.db")) == 0)
    try? FileManager.default.removeItem(atPath: daemon.storeFile("keychain.db-wal"))
    try daemon.expectRefusal(naming: "index.key")
  }

  private func check(
    _ daemon: DaemonProcess, _ arguments: [String] = [], password: String = "test password"
  ) throws -> CommandResult {
    try runCommand(
      KeychainctlTests.keychainctl,
      ["check", "--data-dir", daemon.home.path + "/.local/share/keychaind"] + arguments,
      environment: daemon.environment,
      stdin: Array(password.utf8))
  }

  /// keychainctl check reads the files keychaind refuses, and names what is wrong.
  @Test func keychainctlCheckNamesTheDamage() async throws {
    let daemon = try await store(cleanly: true)
    let healthy = try check(daemon, ["--password-stdin"])
    #expect(healthy.status == 0, "\(healthy.stdout)\(healthy.stderr)")
    #expect(healthy.stdout.contains("every item of login decrypted"), "\(healthy.stdout)")
    // A mistyped password decrypts nothing: said, and not "no damage" alone.
    let mistyped = try check(daemon, ["--password-stdin"], password: "test pasword")
    #expect(mistyped.status == 1)
    #expect(mistyped.stderr.contains("the password opens no collection"), "\(mistyped.stderr)")
    let before = daemon.storeSnapshot()
    try overwrite(daemon.storeFile("index.key"), at: 0, with: Array(repeating: 7, count: 32))
    let damaged = try check(daemon)
    #expect(damaged.status == 1)
    #expect(
      damaged.stdout.contains("DAMAGED: \(daemon.storeFile("keychain.db"))"), "\(damaged.stdout)")
    #expect(damaged.stdout.contains("not the key this database was made with"))
    #expect(daemon.storeSnapshot()["keychain.db"] == before["keychain.db"])
  }

  /// Damage inside a page, which the checks before start-up cannot see, is found by the one
  /// that runs beside it: keychaind then writes nothing (the write is refused, saying why), and
  /// once it stops the files are as it found them.
  @Test func aDamagedPageIsReadButNeverWritten() async throws {
    let daemon = try await store(items: 60, cleanly: true)
    let file = daemon.storeFile("keychain.db")
    let bytes = try #require(FileManager.default.contents(atPath: file))
    let middle = bytes.count / 2
    try overwrite(file, at: UInt64(middle), with: bytes[middle..<middle + 64].map { $0 ^ 0xFF })
    try #require(try check(daemon).status == 1, "not damage that quick_check finds")
    let before = daemon.storeSnapshot()
    try await daemon.start()
    for _ in 0..<500 where !daemon.log.contains("quick_check finds") {  // a bound
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(daemon.log.contains("keychaind reads it but writes nothing to it"), "\(daemon.log)")
    let stored = try daemon.run(
      "secret-tool", ["store", "--label=new", "damage", "new"], stdin: Array("new".utf8))
    #expect(stored.status != 0)
    #expect(stored.stderr.contains("writes nothing to it"), "\(stored.stderr)")
    #expect(daemon.terminate() == 0)
    let after = daemon.storeSnapshot()
    for name in ["keychain.db", "index.key", "keychain.ledger"] {
      #expect(after[name] == before[name], "\(name) changed")
    }
  }

  /// An item the search index lost is found again once keychaind unlocks its collection.
  @Test func aDamagedSearchIndexIsRebuiltAtUnlock() async throws {
    let daemon = try await store(cleanly: true)
    let database = try SQLiteFile(daemon.storeFile("keychain.db"))
    try database.execute("DELETE FROM item_digest WHERE itemID = (SELECT MIN(id) FROM item)")
    let report = try check(daemon)
    #expect(report.status == 1 && report.stdout.contains("search index of 1 item(s)"))
    try await daemon.start()
    var found = ""
    for _ in 0..<500 where found != "secret 0" {  // the repair runs in the background
      found = try daemon.run("secret-tool", ["lookup", "damage", "0"]).stdout
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(found == "secret 0", "\(daemon.log)")
    #expect(daemon.log.contains("rebuilt the damaged search index of 1 item(s) of login"))
  }
}
