// SPDX-License-Identifier: MIT
//
// A real pinentry (pinentry-tty, from GnuPG) on a terminal that tmux provides: the dialog shows
// our text, and a password typed into it unlocks the keyring.

import Foundation
import KeychainTesting
import Testing

private let tools = ["/usr/bin/pinentry-tty", "/usr/bin/tmux"]

@Suite(.enabled(if: tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }))
struct RealPinentryTests {
  /// A tmux server of its own (its own socket), with one pane to be the terminal.
  private final class Terminal {
    let directory: TemporaryDirectory
    var socket: String { directory.path + "/tmux" }

    init() throws {
      directory = try TemporaryDirectory(prefix: "tmux")
      try tmux(["new-session", "-d", "-s", "t", "-x", "120", "-y", "20", "sleep 600"])
    }

    deinit { _ = try? tmux(["kill-server"]) }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
      let result = try runCommand("tmux", ["-S", socket] + arguments, timeout: .seconds(20))
      guard result.status == 0 else { throw TestingError("tmux \(arguments): \(result.stderr)") }
      return result.stdout
    }

    var tty: String {
      get throws {
        try tmux(["display", "-p", "-t", "t", "#{pane_tty}"]).trimmingCharacters(
          in: .whitespacesAndNewlines)
      }
    }

    /// Waits (a bound, not a speed check) until the screen shows `text`.
    func waitFor(_ text: String) async throws -> String {
      for _ in 0..<1500 {
        let screen = try tmux(["capture-pane", "-p", "-t", "t"])
        if screen.contains(text) { return screen }
        try await Task.sleep(for: .milliseconds(20))
      }
      throw TestingError("the terminal never showed '\(text)'")
    }
  }

  @Test func aPasswordTypedIntoPinentryTTYUnlocks() async throws {
    let terminal = try Terminal()
    let daemon = try await DaemonProcess(
      pinentry: "pinentry-tty", environment: ["GPG_TTY": try terminal.tty, "TERM": "xterm"])
    let login = "/org/freedesktop/secrets/collection/login"
    _ = try daemon.run(
      "gdbus",
      [
        "call", "--session", "-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets",
        "-m", "org.freedesktop.Secret.Service.Lock", "['\(login)']",
      ])
    let client = try PromptClient(daemon, ["unlock", login])
    let screen = try await terminal.waitFor("Password:")
    #expect(
      screen.contains("An application wants access to the keyring “Login”, but it is locked."))
    try terminal.tmux(["send-keys", "-t", "t", "test password", "Enter"])
    #expect(try client.finish().contains("UNLOCKED ao ['\(login)']"), "\(daemon.log)")
  }
}
