// SPDX-License-Identifier: MIT
//
// A real pinentry (pinentry-tty, from GnuPG) on a terminal that tmux provides: the dialog shows
// our text, and a password typed into it unlocks the keyring.

import Foundation
import KeychainDBus
import KeychainTesting
import Testing

private let tools = ["/usr/bin/pinentry-tty", "/usr/bin/tmux"]

@Suite(.enabled(if: tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }))
struct RealPinentryTests {
  @Test func aPasswordTypedIntoPinentryTTYUnlocks() async throws {
    let terminal = try TmuxTerminal()
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
    let screen = try await terminal.waitFor("Authentication required")
    #expect(
      screen.contains("The login keyring did not get unlocked when you logged into your computer."))
    try terminal.tmux(["send-keys", "-t", "t", "test password", "Enter"])
    #expect(try client.finish().contains("UNLOCKED ao ['\(login)']"), "\(daemon.log)")
  }

  /// A terminal running `keychaind --unlock` on the bus and home of `environment`, its log
  /// appended to `log`, then the shell command `then`.
  static func unlockAtATerminal(_ environment: [String: String], log: String, then: String)
    throws -> TmuxTerminal
  {
    let exports = environment.filter {
      $0.key == "DBUS_SESSION_BUS_ADDRESS" || $0.key.hasPrefix("XDG_") || $0.key == "HOME"
        || $0.key == "PINENTRY"
    }
    .map { "\($0.key)='\($0.value)'" }.sorted().joined(separator: " ")
    return try TmuxTerminal(
      running: "env \(exports) \(Binaries.keychaind) --unlock 2>>\(log); \(then)")
  }

  /// keychaind --unlock at a terminal asks "Password:" and does not echo what is typed.
  @Test func unlockAtATerminalAsksWithoutEcho() async throws {
    let bus = try PrivateBus()
    let home = try TemporaryDirectory(prefix: "tty-unlock")
    let environment = bus.environment(home: home.path, extra: ["PINENTRY": "none"])
    let terminal = try Self.unlockAtATerminal(
      environment, log: home.path + "/log", then: "sleep 600")
    _ = try await terminal.waitFor("Password:")
    try terminal.tmux(["send-keys", "-t", "t", "typed at a tty", "Enter"])
    // No login keyring yet: the password that makes it is asked twice.
    _ = try await terminal.waitFor("The password again:")
    try terminal.tmux(["send-keys", "-t", "t", "typed at a tty", "Enter"])
    let watcher = try await bus.connect()
    var owner: BusName?
    for _ in 0..<1500 where owner == nil {  // a bound, not a speed check
      owner = try await watcher.nameOwner("org.freedesktop.secrets")
      if owner == nil { try await Task.sleep(for: .milliseconds(20)) }
    }
    #expect(owner != nil)
    let screen = try terminal.tmux(["capture-pane", "-p", "-t", "t"])
    #expect(!screen.contains("typed at a tty"), "the password was echoed: \(screen)")
    let stored = try runCommand(
      "secret-tool", ["store", "--label=tty", "app", "tty"], environment: environment,
      stdin: Array("x".utf8))
    #expect(stored.status == 0, "\(stored.stderr)")
    // The typed line is the login password: the collection opens with it.
    let log = (try? String(contentsOfFile: home.path + "/log", encoding: .utf8)) ?? ""
    #expect(log.contains("created the login collection"), "\(log)")
    await watcher.close()
  }

  /// Two different passwords typed for a new login keyring make none: keychaind says so and
  /// ends with status 2.
  @Test func aNewLoginKeyringTypedTwiceDifferentlyIsNotMade() async throws {
    let bus = try PrivateBus()
    let home = try TemporaryDirectory(prefix: "tty-mismatch")
    let environment = bus.environment(home: home.path, extra: ["PINENTRY": "none"])
    let terminal = try Self.unlockAtATerminal(
      environment, log: home.path + "/log", then: "echo status $?; sleep 600")
    _ = try await terminal.waitFor("Password:")
    try terminal.tmux(["send-keys", "-t", "t", "first try", "Enter"])
    _ = try await terminal.waitFor("The password again:")
    try terminal.tmux(["send-keys", "-t", "t", "first tyr", "Enter"])
    _ = try await terminal.waitFor("status 2")
    let log = (try? String(contentsOfFile: home.path + "/log", encoding: .utf8)) ?? ""
    #expect(log.contains("the passwords do not match: no login keyring was made"), "\(log)")
    #expect(!log.contains("created the login collection"), "\(log)")
  }
}
