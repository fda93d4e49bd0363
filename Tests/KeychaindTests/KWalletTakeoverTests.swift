// SPDX-License-Identifier: MIT
//
// When Debian's kwalletd5 got to org.kde.kwalletd5 first (the bus started it, or
// pam_kwallet5 did): keychaind serves the Secret Service, queues for the KWallet name and
// says who holds it; with --replace it asks kwalletd5 to write its wallets and quit, and takes
// the name, and kwalletd5's wallet file is on disk afterwards.

import Foundation
import KeychainDBus
import KeychainTesting
import Testing

@Suite(.enabled(if: KWalletd.executable != nil, "needs libkf5wallet-bin"))
struct KWalletTakeoverTests {
  static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("clients").path

  @Test func keychaindQueuesBehindKwalletd5AndReplaceTakesItsNames() async throws {
    let kwalletd = try await KWalletd()
    // A wallet kwalletd5 holds in memory, with an entry written into it.
    let made = try runCommand(
      "/usr/bin/python3",
      [
        "-c",
        """
        import sys
        sys.path.insert(0, "\(Self.clients)")
        import dbus
        from kwallet_forms import pam_open
        w = dbus.Interface(dbus.SessionBus().get_object("org.kde.kwalletd5", "/modules/kwalletd5"),
                           "org.kde.KWallet")
        pam_open(w, "kdewallet", "pw")
        h = w.open("kdewallet", dbus.Int64(0), "t", signature="sxs")
        assert w.writePassword(h, "F", "k", "kept", "t") == 0
        """,
      ], environment: kwalletd.environment)
    #expect(made.status == 0, "\(made.stderr)")

    var environment = kwalletd.environment
    environment["PINENTRY"] = "none"
    let log = kwalletd.home.path + "/keychaind.log"
    let watcher = try await kwalletd.bus.connect()
    defer { Task { await watcher.close() } }

    // Without --replace: the Secret Service is keychaind's, KWallet's name stays kwalletd5's.
    let queued = try ChildProcess(
      Binaries.keychaind, [], environment: environment, stderrFile: log)
    try await owner(of: "org.freedesktop.secrets", becomes: UInt32(queued.pid), watcher)
    try await owner(of: "org.kde.kwalletd6", becomes: UInt32(queued.pid), watcher)
    #expect(try await watcher.credentials(of: "org.kde.kwalletd5").pid == UInt32(kwalletd.pid))
    let said = try String(contentsOfFile: log, encoding: .utf8)
    #expect(said.contains("org.kde.kwalletd5 belongs to kwalletd5 (pid \(kwalletd.pid)"), "\(said)")
    #expect(said.contains("--replace"))
    let doctor = try runCommand(Binaries.keychainctl, ["doctor"], environment: environment)
    #expect(
      doctor.stdout.contains(
        "problem: KDE programs (KWallet): /usr/bin/kwalletd5 owns org.kde.kwalletd5"),
      "\(doctor.stdout)")
    queued.signal(SIGTERM)
    #expect(queued.wait() == 0)

    // With --replace: kwalletd5 writes its wallet, quits, and the name is keychaind's.
    let replacing = try ChildProcess(
      Binaries.keychaind, ["--replace", "--verbose"], environment: environment, stderrFile: log)
    defer { replacing.signal(SIGTERM) }
    try await owner(of: "org.kde.kwalletd5", becomes: UInt32(replacing.pid), watcher)
    for _ in 0..<500 where kwalletd.isRunning { try await Task.sleep(for: .milliseconds(20)) }
    #expect(!kwalletd.isRunning, "kwalletd5 is still running")
    let wallet = kwalletd.environment["XDG_DATA_HOME"]! + "/kwalletd/kdewallet.kwl"
    let size = (try? FileManager.default.attributesOfItem(atPath: wallet)[.size] as? Int) ?? 0
    // Header, name index and one encrypted folder with its entry.
    #expect(size > 60, "kdewallet.kwl was not written (\(size) bytes)")
  }

  /// Waits until `name` belongs to process `pid` (a bound of 30 s, not a speed check).
  private func owner(of name: BusName, becomes pid: UInt32, _ watcher: Connection) async throws {
    for _ in 0..<1500 {
      if (try? await watcher.credentials(of: name).pid) == pid { return }
      try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("\(name) never became pid \(pid)'s")
  }
}
