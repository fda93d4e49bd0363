// SPDX-License-Identifier: MIT
//
// git's libsecret credential helper, built from the source Debian ships with git (as Debian's
// documentation tells users to), answering `git credential` against keychaind and gnome-keyring.

import Foundation
import KeychainTesting
import Testing

/// Debian's git ships the helper as source; its documentation says to build it.
private let source = "/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c"

@Suite(
  .serialized,
  .enabled(
    if: FileManager.default.fileExists(atPath: source),
    "git's contrib/credential/libsecret source is not installed (package git)"))
struct GitCredentialTests {
  /// The helper, compiled with the toolchain's clang into `directory`.
  static func buildHelper(in directory: TemporaryDirectory) throws -> String {
    let flags = try runCommand(
      "/usr/bin/pkg-config", ["--cflags", "--libs", "libsecret-1", "glib-2.0"])
    try #require(flags.status == 0, "pkg-config libsecret-1 (libsecret-1-dev): \(flags.stderr)")
    let output = directory.path + "/git-credential-libsecret"
    let built = try runCommand(
      "/usr/bin/env",
      ["clang", "-O1", "-w", "-o", output, source]
        + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init),
      timeout: hangBound)
    try #require(built.status == 0, "clang: \(built.stderr)")
    return output
  }

  /// `git credential ACTION` with the helper and `fields` on stdin.
  private static func git(
    _ action: String, _ fields: [String], helper: String, _ environment: [String: String]
  ) throws -> CommandResult {
    var environment = environment
    environment["GIT_TERMINAL_PROMPT"] = "0"  // never wait for a person
    environment["GIT_CONFIG_NOSYSTEM"] = "1"
    return try runCommand(
      "/usr/bin/git", ["-c", "credential.helper=\(helper)", "credential", action],
      environment: environment, stdin: Array((fields.joined(separator: "\n") + "\n\n").utf8))
  }

  private static let site = ["protocol=https", "host=git.example.org"]
  private static let login = site + ["username=bob", "password=s3cret ✓"]

  /// approve, fill, reject, fill again: what git does on a good push and on a refused password.
  static func lifecycle(helper: String, _ environment: [String: String]) throws {
    func git(_ action: String, _ fields: [String]) throws -> CommandResult {
      try Self.git(action, fields, helper: helper, environment)
    }
    let approved = try git("approve", login)
    #expect(approved.status == 0, "\(approved.stderr)")
    let filled = try git("fill", site)
    #expect(filled.stdout == (login + [""]).joined(separator: "\n"), "\(filled.stderr)")
    let rejected = try git("reject", login)
    #expect(rejected.status == 0, "\(rejected.stderr)")
    let gone = try git("fill", site)
    #expect(gone.status != 0 && !gone.stdout.contains("s3cret"))
  }

  @Test(.readsAnotherProgramsItems) func gitStoresFindsAndForgetsInKeychaind() async throws {
    let daemon = try await DaemonProcess()
    let helper = try Self.buildHelper(in: daemon.home)
    try Self.lifecycle(helper: helper, daemon.environment)
    // What git stored is an Internet password to the Keychain model too.
    _ = try Self.git("approve", Self.login, helper: helper, daemon.environment)
    let found = try daemon.run(
      KeychainctlTests.keychainctl, ["find-internet-password", "-s", "git.example.org", "-w"])
    #expect(found.stdout == "s3cret ✓\n", "\(found.stderr)")
    #expect(daemon.isRunning)
  }

  @Test(.enabled(if: GnomeKeyring.executable != nil, "gnome-keyring is not installed"))
  func theSameOnGnomeKeyring() async throws {
    let gnome = try await GnomeKeyring()
    try Self.lifecycle(helper: try Self.buildHelper(in: gnome.home), gnome.environment)
  }
}
