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

  private func path(_ daemon: DaemonProcess, _ name: String) -> String {
    daemon.home.path + "/.local/share/keychaind/" + name
  }

  private func size(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : -1
  }

  /// Stores `count` items in one quick burst over one connection.
  private func burst(_ daemon: DaemonProcess, _ count: Int) async throws {
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
    await client.close()
  }

  /// A daemon killed (SIGKILL) right after storing 10 items: the worst case, in which every one
  /// of them is in the log only (10 items write fewer pages than SQLite's automatic checkpoint
  /// waits for). keychaind's own checkpoint comes a moment after a burst; should it win the
  /// race with the kill, the burst is tried again on a new store.
  private func crashedWithWritesInTheLog() async throws -> DaemonProcess {
    for _ in 0..<3 {
      let daemon = try await DaemonProcess()
      try await burst(daemon, 10)
      daemon.kill(with: SIGKILL)
      if size(path(daemon, "keychain.db-wal")) > 32 { return daemon }
    }
    throw TestingError("the checkpoint emptied the log before every kill")
  }

  /// How many of the first `count` items `secret-tool` finds.
  private func lookups(_ daemon: DaemonProcess, of count: Int) throws -> Int {
    try (0..<count).filter {
      try daemon.run("secret-tool", ["lookup", "lost", String($0)]).stdout == "secret \($0)"
    }.count
  }

  /// The bytes of the store's files, the ledger included (the shared-memory index aside).
  private func snapshot(_ daemon: DaemonProcess) -> [String: Data] {
    var files: [String: Data] = [:]
    for name in ["keychain.db", "keychain.db-wal", "index.key", "keychain.ledger"] {
      files[name] = FileManager.default.contents(atPath: path(daemon, name))
    }
    return files
  }

  /// keychaind must exit 6 naming `file`, say what to do, and change nothing.
  private func expectRefusal(_ daemon: DaemonProcess, naming file: String, _ problem: String)
    throws
  {
    let before = snapshot(daemon)
    var environment = daemon.environment
    environment["PINENTRY"] = "none"
    let result = try runCommand(
      Binaries.keychaind, ["--verbose"], environment: environment, timeout: .seconds(20))
    #expect(result.status == 6, "\(result.stderr)")
    #expect(result.stderr.contains(path(daemon, file) + ": "), "\(result.stderr)")
    #expect(result.stderr.contains(problem), "\(result.stderr)")
    #expect(result.stderr.contains("changed nothing"), "\(result.stderr)")
    #expect(result.stderr.contains("delete " + path(daemon, "keychain.ledger")))
    #expect(snapshot(daemon) == before, "the refused store was modified")
  }

  @Test func aLogDeletedAfterACrashIsRefused() async throws {
    let daemon = try await crashedWithWritesInTheLog()
    #expect(unlink(path(daemon, "keychain.db-wal")) == 0)
    unlink(path(daemon, "keychain.db-shm"))
    try expectRefusal(daemon, naming: "keychain.db-wal", "it is missing or empty")
    // What the message offers: delete the ledger to open keychain.db as it is.
    #expect(unlink(path(daemon, "keychain.ledger")) == 0)
    try await daemon.start()
    #expect(try lookups(daemon, of: 10) < 10)
  }

  @Test func aLogCutShortAfterACrashIsRefused() async throws {
    let daemon = try await crashedWithWritesInTheLog()
    let log = path(daemon, "keychain.db-wal")
    #expect(truncate(log, off_t(size(log) / 2)) == 0)
    try expectRefusal(daemon, naming: "keychain.db-wal", "it was cut short or damaged")
  }

  @Test func anOlderDatabaseRestoredAloneIsRefused() async throws {
    let daemon = try await DaemonProcess()
    try await burst(daemon, 5)
    #expect(daemon.terminate() == 0)
    let old = try #require(FileManager.default.contents(atPath: path(daemon, "keychain.db")))
    try await daemon.start()
    try await burst(daemon, 5)
    #expect(daemon.terminate() == 0)
    try old.write(to: URL(fileURLWithPath: path(daemon, "keychain.db")))
    try expectRefusal(daemon, naming: "keychain.db", "it is older than the store")
  }

  /// Within about a second of a burst keychain.db alone (a backup of it, say) holds every
  /// write: copied with its index key and nothing else, it opens with all 20 items.
  @Test func aMomentAfterABurstTheDatabaseFileHoldsEveryWrite() async throws {
    let daemon = try await DaemonProcess()
    try await burst(daemon, 20)
    for _ in 0..<500 where size(path(daemon, "keychain.db-wal")) != 0 {
      try await Task.sleep(for: .milliseconds(20))  // a bound, not a speed check
    }
    #expect(size(path(daemon, "keychain.db-wal")) == 0)
    let backup = try TemporaryDirectory(prefix: "backup")
    let data = backup.path + "/keychaind"
    try FileManager.default.createDirectory(
      atPath: data, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    for name in ["keychain.db", "index.key"] {
      try FileManager.default.copyItem(atPath: path(daemon, name), toPath: data + "/" + name)
    }
    let copy = try await DaemonProcess(arguments: ["--data-dir", data])
    #expect(try lookups(copy, of: 20) == 20, "\(copy.log)")
  }
}
