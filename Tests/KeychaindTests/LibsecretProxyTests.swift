// SPDX-License-Identifier: MIT
//
// libsecret's proxies (PyGObject with libsecret's typelib, as Seahorse and GNOME applications
// hold them) follow the keyring while other clients change it: Tests/clients/libsecret-proxies.py,
// run against keychaind and, with the same steps, against gnome-keyring, so that a step the
// script cannot check shows up there too.

import Foundation
import KeychainTesting
import Testing

@Suite(
  .enabled(
    if: FileManager.default.fileExists(
      atPath: "/usr/lib/x86_64-linux-gnu/girepository-1.0/Secret-1.typelib")
      || FileManager.default.fileExists(
        atPath: "/usr/lib/aarch64-linux-gnu/girepository-1.0/Secret-1.typelib"),
    "libsecret's typelib (gir1.2-secret-1) is not installed"))
struct LibsecretProxyTests {
  private static let script =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("clients/libsecret-proxies.py").path

  /// The login collection's password in both providers (what GnomeKeyring unlocks with).
  private static let password = "password"

  private static func storeTwoItems(_ environment: [String: String]) throws {
    for label in ["A", "B"] {
      let stored = try runCommand(
        "/usr/bin/secret-tool", ["store", "--label=\(label)", "app", label.lowercased()],
        environment: environment, stdin: Array("secret".utf8))
      #expect(stored.status == 0, "\(stored.stderr)")
    }
  }

  private static func proxies(
    _ scenario: String, provider: String, _ environment: [String: String]
  ) throws -> CommandResult {
    try runCommand(
      "/usr/bin/python3", [script, KeychainctlTests.keychainctl, provider, scenario],
      environment: environment, timeout: hangBound)
  }

  @Test(.readsAnotherProgramsItems) func proxiesFollowLiveChangesOnKeychaind() async throws {
    let daemon = try await DaemonProcess(password: Self.password)
    try Self.storeTwoItems(daemon.environment)
    let result = try Self.proxies("live", provider: "keychaind", daemon.environment)
    #expect(result.status == 0 && result.stdout == "OK\n", "\(result.stderr)\n\(daemon.log)")
  }

  // The script reads the Locked state of items secret-tool stored: in `protect` that state is
  // per caller (locked to the script, which owns neither), so the test runs in the other modes,
  // as the live test does.
  @Test(.readsAnotherProgramsItems)
  func proxiesFillInLabelsAtTheFirstUnlockOnKeychaind() async throws {
    let daemon = try await DaemonProcess(password: nil)
    let created = try daemon.run(
      KeychainctlTests.keychainctl, ["create", "Login", "--alias", "default", "--password-stdin"],
      stdin: Array(Self.password.utf8))
    #expect(created.status == 0, "\(created.stderr)")
    try Self.storeTwoItems(daemon.environment)
    _ = daemon.kill(with: SIGTERM)
    try await daemon.start()  // without --unlock: the collection is locked, its labels unread
    let result = try Self.proxies("locked-at-start", provider: "keychaind", daemon.environment)
    #expect(result.status == 0 && result.stdout == "OK\n", "\(result.stderr)\n\(daemon.log)")
  }

  @Test(.enabled(if: GnomeKeyring.executable != nil, "gnome-keyring is not installed"))
  func theSameStepsOnGnomeKeyring() async throws {
    let gnome = try await GnomeKeyring()
    try Self.storeTwoItems(gnome.environment)
    let live = try Self.proxies("live", provider: "gnome-keyring", gnome.environment)
    #expect(live.status == 0 && live.stdout == "OK\n", "\(live.stderr)")

    let restarted = try await GnomeKeyring()
    try Self.storeTwoItems(restarted.environment)
    try await restarted.stop()
    try await restarted.start(unlock: false)
    let locked = try Self.proxies(
      "locked-at-start", provider: "gnome-keyring", restarted.environment)
    #expect(locked.status == 0 && locked.stdout == "OK\n", "\(locked.stderr)")
  }
}
