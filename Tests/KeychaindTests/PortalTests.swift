// SPDX-License-Identifier: MIT
//
// The Flatpak portal backend, called as xdg-desktop-portal calls it (Tests/clients/
// portal-retrieve.py: RetrieveSecret with the write end of a real pipe), from a connection that
// owns org.freedesktop.portal.Desktop on the test's private bus and runs as xdg-desktop-portal
// (the script under a Python installed as /run/keychain-tests/…/xdg-desktop-portal, a root-owned
// program of that name), and from ones that are not the portal: one without the name, and a
// hostile one that takes the name while the real portal is not running.

import Foundation
import KeychainTesting
import Testing

@Suite(
  .enabled(
    if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/jeepney"),
    "python3-jeepney is not installed"),
  .enabled(if: getuid() == 0, "standing in for xdg-desktop-portal installs a program as root"))
struct PortalTests {
  private static let script =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("clients/portal-retrieve.py").path

  /// Python, installed as a root-owned program named xdg-desktop-portal.
  static let portal = Result {
    try InstalledProgram(copying: "/usr/bin/python3", as: "xdg-desktop-portal")
  }

  /// The response and key in hex (or the error name) from one call: as the portal with
  /// `--as-portal`, else as a plain script; `python` runs the script instead.
  static func retrieve(
    _ appID: String, _ flags: [String] = ["--as-portal"], _ env: [String: String],
    python: String? = nil
  )
    throws -> String
  {
    let interpreter =
      try python ?? (flags.contains("--as-portal") ? portal.get().path : "/usr/bin/python3")
    let result = try runCommand(
      interpreter, [script, appID] + flags, environment: env, timeout: hangBound)
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static func keys(_ appID: String, _ env: [String: String]) throws -> String {
    let found = try runCommand(
      "/usr/bin/secret-tool", ["search", "--all", "app_id", appID], environment: env)
    return found.stdout + found.stderr
  }

  @Test func onlyThePortalGetsAKeyAndTheSameKeyEachTime() async throws {
    let daemon = try await DaemonProcess()
    let env = daemon.environment
    // Anyone else is refused, and nothing is made for them.
    #expect(
      try Self.retrieve("org.example.App", [], env) == "org.freedesktop.DBus.Error.AccessDenied")
    #expect(try !Self.keys("org.example.App", env).contains("label ="))

    let first = try Self.retrieve("org.example.App", ["--as-portal"], env)
    #expect(first.hasPrefix("0 ") && first.count == 2 + 128, "\(first)")
    #expect(try Self.retrieve("org.example.App", ["--as-portal"], env) == first)
    let other = try Self.retrieve("org.example.Other", ["--as-portal"], env)
    #expect(other.hasPrefix("0 ") && other != first)
    let stored = try Self.keys("org.example.App", env)
    #expect(stored.contains("label = Application key for org.example.App"), "\(stored)")
    #expect(stored.contains("schema = org.freedesktop.portal.Secret\n"), "\(stored)")

    // An invalid app id, and an app that closed its end: response 2, and the daemon stays.
    #expect(try Self.retrieve("not-an-app-id", ["--as-portal"], env) == "2")
    #expect(try Self.retrieve("org.example.Gone", ["--as-portal", "--close-reader"], env) == "2")
    #expect(daemon.isRunning)

    // The same key after a restart.
    _ = daemon.kill(with: SIGTERM)
    try await daemon.start()
    #expect(try Self.retrieve("org.example.App", ["--as-portal"], env) == first)
    #expect(!daemon.log.contains(String(first.dropFirst(2).prefix(16))), "the key is never logged")
  }

  /// SECURITY.md [S2]: a program that takes org.freedesktop.portal.Desktop while
  /// xdg-desktop-portal is not running gets no app's key; and an item another program stored
  /// with an app's `app_id` is never what the real portal is given for that app.
  @Test func aHostileOwnerOfThePortalsNameGetsNothingAndAPlantedKeyIsNotTheKey() async throws {
    let daemon = try await DaemonProcess()
    let env = daemon.environment
    let planted = try runCommand(
      "/usr/bin/secret-tool",
      [
        "store", "--label=planted", "app_id", "org.example.Victim", "xdg:schema",
        "org.freedesktop.portal.Secret",
      ],
      environment: env, stdin: Array(String(repeating: "A", count: 64).utf8))
    #expect(planted.status == 0, "\(planted.stderr)")
    // Owns the name, but is a plain script: refused, and nothing made.
    let hostile = try Self.retrieve(
      "org.example.Victim", ["--as-portal"], env, python: "/usr/bin/python3")
    #expect(hostile == "org.freedesktop.DBus.Error.AccessDenied", "\(hostile)")
    #expect(daemon.log.contains("only xdg-desktop-portal may ask"), "\(daemon.log)")
    // The portal gets a key of its own making, not the planted one.
    let key = try Self.retrieve("org.example.Victim", ["--as-portal"], env)
    #expect(key.hasPrefix("0 ") && key.count == 2 + 128, "\(key)")
    #expect(key != "0 " + String(repeating: "41", count: 64))
    #expect(try Self.retrieve("org.example.Victim", ["--as-portal"], env) == key)
  }

  @Test func aLockedKeyringIsUnlockedThroughThePromptFirst() async throws {
    let pinentry = try ScriptedPinentry(answers: [.pin("test password"), .cancel])
    let daemon = try await DaemonProcess(pinentry: pinentry.program)
    let env = daemon.environment
    let first = try Self.retrieve("org.example.App", ["--as-portal"], env)
    let lock = { () throws in
      let locked = try runCommand(
        KeychainctlTests.keychainctl, ["lock", "--collection", "Login"], environment: env)
      #expect(locked.status == 0, "\(locked.stderr)")
    }
    try lock()
    // The call waits for the dialog, then answers the same key.
    let again = try Self.retrieve("org.example.App", ["--as-portal"], env)
    #expect(again == first, "\(again)\n\(pinentry.log)\n\(daemon.log)")
    #expect(pinentry.log.contains("SETOK Unlock"), "\(pinentry.log)")
    #expect(
      pinentry.log.contains(
        "SETDESC The application “org.example.App” wants access to the keyring “Login”, but it is locked"
      ), "\(pinentry.log)")
    // Dismissed: response 1, and still locked.
    try lock()
    #expect(try Self.retrieve("org.example.App", ["--as-portal"], env) == "1")
  }

  @Test(.enabled(if: GnomeKeyring.executable != nil, "gnome-keyring is not installed"))
  func aKeyGnomeKeyringMadeComesOverByteForByte() async throws {
    let gnome = try await GnomeKeyring()
    // gnome-keyring's backend answers anyone; ours only the portal.
    let theirs = try Self.retrieve("org.example.App", [], gnome.environment)
    #expect(theirs.hasPrefix("0 ") && theirs.count == 2 + 128, "\(theirs)")
    try await gnome.stop()
    let home = gnome.environment.filter { $0.key == "HOME" || $0.key.hasPrefix("XDG_") }
    let daemon = try await DaemonProcess(password: "password", environment: home)
    #expect(try Self.retrieve("org.example.App", ["--as-portal"], daemon.environment) == theirs)
  }
}
