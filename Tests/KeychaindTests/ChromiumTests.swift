// SPDX-License-Identifier: MIT
//
// Chromium, headless, with its libsecret password store: it keeps the key it encrypts cookies
// and saved passwords with in the keyring ("Chromium Safe Storage"). On keychaind it makes that
// key once, encrypts with it ("v11" cookies) and reads its cookies back in the next run; and
// a profile made while gnome-keyring ran stays readable after switching to keychaind, because
// the import brings the same key over. Tests/clients/chromium-cookie.py drives Chromium.

import Foundation
import KeychainTesting
import Testing

@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
    "Chromium is not installed"))
struct ChromiumTests {
  private static let script =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("clients/chromium-cookie.py").path

  static func chromium(
    _ mode: String, profile: String, store: String = "gnome-libsecret",
    _ environment: [String: String]
  ) throws -> String {
    let result = try runCommand(
      "/usr/bin/python3", [script, mode, profile, store], environment: environment,
      timeout: .seconds(180))
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout
  }

  /// The keyring's "Chromium Safe Storage" items, as secret-tool lists them.
  static func safeStorage(_ environment: [String: String]) throws -> [String] {
    let found = try runCommand(
      "/usr/bin/secret-tool", ["search", "--all", "application", "chromium"],
      environment: environment)
    return found.stdout.split(separator: "\n").filter { $0.hasPrefix("label = ") }.map(String.init)
  }

  @Test func chromiumKeepsItsKeyInKeychaindAndReadsItsCookiesBack() async throws {
    let daemon = try await DaemonProcess()
    let profile = daemon.home.path + "/chromium"
    let set = try Self.chromium("set", profile: profile, daemon.environment)
    #expect(set == "session=abc\nsession v11\n", "\(set)")
    #expect(try Self.safeStorage(daemon.environment) == ["label = Chromium Safe Storage"])
    // The next run decrypts its cookie with the key it finds, and makes no second one.
    let shown = try Self.chromium("show", profile: profile, daemon.environment)
    #expect(shown.hasPrefix("session=abc\n"), "\(shown)")
    #expect(try Self.safeStorage(daemon.environment) == ["label = Chromium Safe Storage"])
  }

  @Test(.enabled(if: GnomeKeyring.executable != nil, "gnome-keyring is not installed"))
  func aProfileMadeOnGnomeKeyringStaysReadableOnKeychaind() async throws {
    let gnome = try await GnomeKeyring()
    let profile = gnome.home.path + "/chromium"
    let set = try Self.chromium("set", profile: profile, gnome.environment)
    #expect(set == "session=abc\nsession v11\n", "\(set)")
    try await gnome.stop()
    let home = gnome.environment.filter { $0.key == "HOME" || $0.key.hasPrefix("XDG_") }
    let daemon = try await DaemonProcess(password: "password", environment: home)
    let shown = try Self.chromium("show", profile: profile, daemon.environment)
    #expect(shown.hasPrefix("session=abc\n"), "\(shown)\n\(daemon.log)")
    #expect(try Self.safeStorage(daemon.environment) == ["label = Chromium Safe Storage"])
  }
}
