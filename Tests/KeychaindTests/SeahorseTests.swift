// SPDX-License-Identifier: MIT
//
// Seahorse itself on a virtual display (Tests/clients/seahorse.py), kept open while items and
// keyrings change under it: it must stay alive and list what the provider holds, read back from
// its accessibility tree. Run against keychaind and, with the same steps, against gnome-keyring.

import Foundation
import KeychainTesting
import Testing

// Serialized: two virtual displays started at the same moment have been seen to race for one
// display number, and Seahorse then cannot open its display.
@Suite(
  .serialized,
  .enabled(
    if: [
      "/usr/bin/seahorse", "/usr/bin/Xvfb", "/usr/bin/xdotool", "/usr/libexec/at-spi-bus-launcher",
    ]
    .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
      && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/pyatspi"),
    "Seahorse, Xvfb, xdotool or AT-SPI (python3-pyatspi, at-spi2-core) is not installed"))
struct SeahorseTests {
  private static let script =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("clients/seahorse.py").path

  /// What the script expects: an unlocked login collection with this password holding A and B.
  private static func seahorse(
    provider: String, _ environment: [String: String], mode: [String] = []
  ) async throws -> CommandResult {
    for label in ["A", "B"] {
      let stored = try runCommand(
        "/usr/bin/secret-tool", ["store", "--label=\(label)", "app", label.lowercased()],
        environment: environment, stdin: Array("secret".utf8))
      #expect(stored.status == 0, "\(stored.stderr)")
    }
    // On a thread of its own: the script takes seconds (its bounds, minutes), and a pool
    // thread blocked that long left the rest of the run one thread, and stalled it.
    return try await runCommandOnOwnThread(
      "/usr/bin/python3", [script, KeychainctlTests.keychainctl, provider] + mode,
      environment: environment, timeout: .seconds(300))
  }

  @Test(.readsAnotherProgramsItems) func seahorseFollowsEveryChangeOnKeychaind() async throws {
    let daemon = try await DaemonProcess(password: "password")
    let result = try await Self.seahorse(provider: "keychaind", daemon.environment)
    #expect(result.status == 0 && result.stdout == "OK\n", "\(result.stderr)\n\(daemon.log)")
  }

  /// In `protect`, a person opens other programs' passwords in Seahorse: GNOME's access dialog
  /// asks (gcr-prompter on Seahorse's display), "Always allow this program" holds, a denial
  /// leaves Seahorse running. Screenshots in .build/journeys/seahorse-protect.
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/libexec/gcr-prompter")
        && VirtualDisplay.isAvailable, "needs gcr-prompter (gcr) and ImageMagick's import"))
  func seahorseAsksBeforeShowingAnotherProgramsPasswordInProtect() async throws {
    let daemon = try await DaemonProcess(
      password: "password", pinentry: "gcr", configuration: AccessControlTests.protect)
    let shots = GnomeJourneyTests.journeys + "/seahorse-protect"
    try? FileManager.default.removeItem(atPath: shots)
    try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
    var environment = daemon.environment
    environment["JOURNEY_SCREENSHOTS"] = shots
    let result = try await Self.seahorse(
      provider: "keychaind", environment, mode: ["protect"])
    #expect(result.status == 0 && result.stdout == "OK\n", "\(result.stderr)\n\(daemon.log)")
    // "Always allow this program" is kept: a grant for Seahorse on A, made in the dialog.
    let listed = try daemon.run(KeychainctlTests.keychainctl, ["access", "list", "--json"])
    #expect(listed.stdout.contains("\"app\" : \"exe:/usr/bin/seahorse\""), "\(listed.stdout)")
    #expect(listed.stdout.contains("\"source\" : \"dialog\""), "\(listed.stdout)")
  }

  @Test(.enabled(if: GnomeKeyring.executable != nil, "gnome-keyring is not installed"))
  func theSameStepsOnGnomeKeyring() async throws {
    // The reference run gets a second try on a fresh gnome-keyring: once in many full runs,
    // under load, Seahorse on gnome-keyring has missed a change for the script's 90 s. That is
    // the oracle's flake, not keychaind's (whose run above gets no second try); the first
    // failure is still printed.
    for attempt in 1...2 {
      let gnome = try await GnomeKeyring()
      let result = try await Self.seahorse(provider: "gnome-keyring", gnome.environment)
      if result.status == 0 && result.stdout == "OK\n" { return }
      guard attempt == 2 else {
        print("Seahorse on gnome-keyring, first try: \(result.stderr)")
        continue
      }
      Issue.record("Seahorse on gnome-keyring failed twice: \(result.stderr)")
    }
  }
}
