// SPDX-License-Identifier: MIT
//
// keychainctl doctor on a set-up that unlocks at login and on one that does not.

import Foundation
import KeychainTesting
import Testing

struct DoctorTests {
  static func doctor(_ environment: [String: String], pam: String) throws -> CommandResult {
    try runCommand(
      KeychainctlTests.keychainctl, ["doctor", "--pam-dir", pam], environment: environment)
  }

  @Test func aWorkingSetUpIsAllOK() async throws {
    let daemon = try await DaemonProcess(password: "pw")
    try await ControlSocketTests.waitForSocket(daemon)
    let pam = daemon.home.path + "/pam.d"
    try FileManager.default.createDirectory(atPath: pam, withIntermediateDirectories: true)
    try "auth optional pam_gnome_keyring.so\n-session optional pam_gnome_keyring.so auto_start\n"
      .write(toFile: pam + "/gdm-password", atomically: true, encoding: .utf8)
    try "auth required pam_unix.so\n".write(
      toFile: pam + "/sudo", atomically: true, encoding: .utf8)
    try
      "@include common-auth\nauth optional pam_exec.so expose_authtok quiet keychainctl pam-unlock\n"
      .write(toFile: pam + "/lightdm", atomically: true, encoding: .utf8)
    let autostart = daemon.environment["XDG_CONFIG_HOME"]! + "/autostart"
    try FileManager.default.createDirectory(atPath: autostart, withIntermediateDirectories: true)
    try "[Desktop Entry]\nHidden=true\n".write(
      toFile: autostart + "/gnome-keyring-secrets.desktop", atomically: true, encoding: .utf8)
    let result = try Self.doctor(daemon.environment, pam: pam)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    for line in [
      "ok: Secret Service provider: keychaind", "ok: login unlock socket:",
      "ok: PAM: login unlocks it through gdm-password, lightdm (auth only in lightdm: keychaind must be running or socket-activated)",
      "ok: login collection: unlocked", "ok: gnome-keyring at session start:",
      "ok: KDE programs (KWallet): keychaind serves KWallet on org.kde.kwalletd5, org.kde.kwalletd6",
      // (Unlocked by the test's `keychaind --unlock`, not by a PAM stack.)
      "warning: login unlock at this boot: at ", "by keychaind --unlock, not by the login",
    ] {
      #expect(result.stdout.contains(line), "no \(line) in \(result.stdout)")
    }
  }

  /// Debian's libpam-gnome-keyring on a machine with no display manager puts the module in
  /// common-password only: `passwd` re-keys the keyring, but no login unlocks it.
  @Test func aModuleOnlyInThePasswordStackIsAProblem() async throws {
    let daemon = try await DaemonProcess(password: "pw")
    let pam = daemon.home.path + "/pam.d"
    try FileManager.default.createDirectory(atPath: pam, withIntermediateDirectories: true)
    try "password optional pam_gnome_keyring.so\n".write(
      toFile: pam + "/common-password", atomically: true, encoding: .utf8)
    try "auth [success=1 default=ignore] pam_unix.so nullok\n".write(
      toFile: pam + "/common-auth", atomically: true, encoding: .utf8)
    try "@include common-auth\n@include common-password\nsession required pam_env.so\n".write(
      toFile: pam + "/login", atomically: true, encoding: .utf8)
    let result = try Self.doctor(daemon.environment, pam: pam)
    #expect(result.status == 1, "\(result.stdout)")
    #expect(
      result.stdout.contains(
        "problem: PAM: no login program's auth stage loads pam_gnome_keyring.so or keychainctl pam-unlock (login); common-password does, which only re-keys it on passwd"
      ), "\(result.stdout)")
  }

  @Test func kwalletTurnedOffInKwalletrcIsAProblem() async throws {
    let daemon = try await DaemonProcess(password: "pw")
    let config = daemon.environment["XDG_CONFIG_HOME"]!
    try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
    try "[Wallet]\nEnabled=false\n".write(
      toFile: config + "/kwalletrc", atomically: true, encoding: .utf8)
    let result = try Self.doctor(daemon.environment, pam: daemon.home.path)
    #expect(result.status == 1)
    #expect(
      result.stdout.contains(
        "problem: KDE programs (KWallet): kwalletrc says [Wallet] Enabled=false"),
      "\(result.stdout)")
  }

  @Test(.enabled(if: GnomeKeyring.executable != nil, "gnome-keyring is not installed"))
  func gnomeKeyringInTheWayIsNamedWithWhatToDo() async throws {
    let gnome = try await GnomeKeyring()
    let pam = gnome.home.path + "/pam.d"
    try FileManager.default.createDirectory(atPath: pam, withIntermediateDirectories: true)
    let result = try Self.doctor(gnome.environment, pam: pam)
    #expect(result.status == 1, "\(result.stdout)")
    for line in [
      "problem: Secret Service provider: /usr/bin/gnome-keyring-daemon",
      "is answered by /usr/bin/gnome-keyring-daemon",
      "problem: PAM: \(pam) has no login program's stack",
      "→ add `auth optional pam_gnome_keyring.so`",
    ] {
      #expect(result.stdout.contains(line), "no \(line) in \(result.stdout)")
    }
  }
}
