// SPDX-License-Identifier: MIT
//
// The last silent-loss window, on the real binary. Right after a crash, acknowledged writes may
// live only in keychain.db-wal; SQLite opens the store without a word if that log is then
// deleted (as restoring a backup of keychain.db alone does) or cut short, and serves fewer
// items. keychaind checks the database against the ledger of acknowledged writes beside it and
// refuses such a store (exit 6, the file named, nothing changed). And a moment after a burst of
// writes, keychain.db alone holds all of them.

import Foundation
import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

@Suite struct LostWriteTests {
  private static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"

  private func size(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : -1
  }

  /// Stores `count` items in one quick burst over one connection, and returns it still open.
  private func burst(_ daemon: DaemonProcess, _ count: Int) async throws -> Connection {
    let client = try await daemon.bus.connect()
    let (_, session) = try await client.callSecretService(
      "/org/freedesktop/secrets", SecretService.ServiceMethods.openSession, "plain",
      .string(""))
    for index in 0..<count {
      _ = try await client.callSecretService(
        Self.login, SecretService.CollectionMethods.createItem,
        [
          "org.freedesktop.Secret.Item.Label": .string("lost \(index)"),
          "org.freedesktop.Secret.Item.Attributes": ["lost": String(index)].dbusValue,
        ],
        Secret(
          session: session, parameters: [], value: Array("secret \(index)".utf8),
          contentType: "text/plain"), false)
    }
    return client
  }

  /// A daemon killed (SIGKILL) right after storing 10 items: the worst case, in which every one
  /// of them is in the log only (10 items write fewer pages than SQLite's automatic checkpoint
  /// waits for). keychaind's own checkpoint comes a moment after a burst; should it win the
  /// race with the kill (the test process stalled past it: a loaded machine, a sanitizer build),
  /// the burst is tried again on a new store. The kill comes before anything else, even closing
  /// the client, to keep that window short.
  private func crashedWithWritesInTheLog() async throws -> DaemonProcess {
    for _ in 0..<5 {
      let daemon = try await DaemonProcess()
      let client = try await burst(daemon, 10)
      daemon.kill(with: SIGKILL)
      await client.close()
      if size(daemon.storeFile("keychain.db-wal")) > 32 { return daemon }
    }
    throw TestingError("the checkpoint emptied the log before every kill")
  }

  /// How many of the first `count` items `secret-tool` finds.
  private func lookups(_ daemon: DaemonProcess, of count: Int) throws -> Int {
    try (0..<count).filter {
      try daemon.run("secret-tool", ["lookup", "lost", String($0)]).stdout == "secret \($0)"
    }.count
  }

  @Test func aLogDeletedAfterACrashIsRefused() async throws {
    let daemon = try await crashedWithWritesInTheLog()
    #expect(unlink(daemon.storeFile("keychain.db-wal")) == 0)
    unlink(daemon.storeFile("keychain.db-shm"))
    try daemon.expectRefusal(
      naming: daemon.storeFile("keychain.db-wal") + ": ",
      saying: ["it is missing or empty", "delete " + daemon.storeFile("keychain.ledger")])
    // What the message offers: delete the ledger to open keychain.db as it is.
    #expect(unlink(daemon.storeFile("keychain.ledger")) == 0)
    try await daemon.start()
    #expect(try lookups(daemon, of: 10) < 10)
  }

  @Test func aLogCutShortAfterACrashIsRefused() async throws {
    let daemon = try await crashedWithWritesInTheLog()
    let log = daemon.storeFile("keychain.db-wal")
    #expect(truncate(log, off_t(size(log) / 2)) == 0)
    try daemon.expectRefusal(
      naming: daemon.storeFile("keychain.db-wal") + ": ",
      saying: ["it was cut short or damaged", "delete " + daemon.storeFile("keychain.ledger")])
  }

  @Test func anOlderDatabaseRestoredAloneIsRefused() async throws {
    let daemon = try await DaemonProcess()
    try await burst(daemon, 5).close()
    #expect(daemon.terminate() == 0)
    let old = try #require(FileManager.default.contents(atPath: daemon.storeFile("keychain.db")))
    try await daemon.start()
    try await burst(daemon, 5).close()
    #expect(daemon.terminate() == 0)
    try old.write(to: URL(fileURLWithPath: daemon.storeFile("keychain.db")))
    try daemon.expectRefusal(
      naming: daemon.storeFile("keychain.db") + ": ",
      saying: ["it is older than the store", "delete " + daemon.storeFile("keychain.ledger")])
  }

  /// Within about a second of a burst keychain.db alone (a backup of it, say) holds every
  /// write: copied with its index key and nothing else, it opens with all 20 items.
  @Test(.readsAnotherProgramsItems) func aMomentAfterABurstTheDatabaseFileHoldsEveryWrite()
    async throws
  {
    let daemon = try await DaemonProcess()
    try await burst(daemon, 20).close()
    for _ in 0..<500 where size(daemon.storeFile("keychain.db-wal")) != 0 {
      try await Task.sleep(for: .milliseconds(20))  // a bound, not a speed check
    }
    #expect(size(daemon.storeFile("keychain.db-wal")) == 0)
    let backup = try TemporaryDirectory(prefix: "backup")
    let data = backup.path + "/keychaind"
    try FileManager.default.createDirectory(
      atPath: data, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    for name in ["keychain.db", "index.key"] {
      try FileManager.default.copyItem(atPath: daemon.storeFile(name), toPath: data + "/" + name)
    }
    let copy = try await DaemonProcess(arguments: ["--data-dir", data])
    #expect(try lookups(copy, of: 20) == 20, "\(copy.log)")
  }
}
