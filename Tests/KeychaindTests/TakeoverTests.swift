// SPDX-License-Identifier: MIT
//
// Taking the Secret Service over from a running gnome-keyring-daemon: without --replace
// keychaind says who holds the name and what to do; with it, gnome-keyring is asked to quit
// through its control socket and keychaind serves in its place.

import Foundation
import KeychainDBus
import KeychainTesting
import Testing

@Suite(.enabled(if: GnomeKeyring.executable != nil)) struct TakeoverTests {
  @Test func replaceStopsGnomeKeyringAndWithoutItKeychaindSaysWho() async throws {
    let gnome = try await GnomeKeyring()
    var environment = gnome.environment
    environment["PINENTRY"] = "none"

    let refused = try runCommand(
      Binaries.keychaind, [], environment: environment, timeout: .seconds(30))
    #expect(refused.status == 4)
    #expect(refused.stderr.contains("gnome-keyring-daemon (pid \(gnome.pid)"), "\(refused.stderr)")
    #expect(refused.stderr.contains("--replace"))
    #expect(gnome.isRunning)
    #expect(
      !FileManager.default.fileExists(atPath: gnome.home.path + "/.local/share/keychaind"),
      "nothing is created while another provider holds the name")

    let keychaind = try ChildProcess(
      Binaries.keychaind, ["--replace", "--unlock", "--verbose"], environment: environment,
      stdinFile: nil, stderrFile: gnome.home.path + "/keychaind.log")
    defer { keychaind.signal(SIGTERM) }
    let watcher = try await gnome.bus.connect()
    var owner: UInt32?
    for _ in 0..<1500 where owner != UInt32(keychaind.pid) {  // a bound, not a speed check
      owner = try? await watcher.credentials(of: "org.freedesktop.secrets").pid
      if owner != UInt32(keychaind.pid) { try await Task.sleep(for: .milliseconds(20)) }
    }
    let log = (try? String(contentsOfFile: gnome.home.path + "/keychaind.log", encoding: .utf8))
    #expect(owner == UInt32(keychaind.pid), "\(log ?? "")")
    #expect(log?.contains("quit when asked through") == true, "\(log ?? "")")
    for _ in 0..<500 where gnome.isRunning { try await Task.sleep(for: .milliseconds(20)) }
    #expect(!gnome.isRunning, "gnome-keyring-daemon is still running")
    let stored = try runCommand(
      "secret-tool", ["store", "--label=after", "app", "takeover"], environment: environment,
      stdin: Array("mine now".utf8))
    #expect(stored.status == 0, "\(stored.stderr)")
    await watcher.close()
  }
}
