// SPDX-License-Identifier: MIT
//
// keychaind.conf: a few `key = value` lines. Parsed here in a dozen lines, as the format is
// the plain one of systemd and most daemons, which no configuration library here reads.

import Foundation
import KeychainAccess
import KeychainStore
import KeychainSystem
import KeychainTPM

/// The settings of keychaind.conf.
struct Configuration: Equatable {
  /// The pinentry program (a name on PATH or a path); `none` turns prompting off.
  var pinentry: String?
  /// Where the store lives.
  var dataDirectory: String?
  /// Where the TPM is, in tpm2-tss's TCTI syntax, for TPM key slots.
  var tpm2TCTI = TPM2.defaultTCTI
  /// The FIDO2 key for FIDO2 key slots: a hidraw path, or "" for the first one plugged in.
  var fido2Device = ""
  /// Whether keychaind serves KDE's KWallet API on org.kde.kwalletd5 and org.kde.kwalletd6.
  var kwallet = true
  /// Per-application access: `audit` identifies and logs every access and changes no reply;
  /// `protect` locks items for applications that neither own them nor were allowed them;
  /// `off` does neither.
  var accessControl = AccessMode.audit
  /// Whether a program refused three times in ten minutes, or for want of a display, is shown
  /// as a desktop notification naming the command that allows it.
  var accessNotify = true
  /// When collections lock by themselves, for those that do not say otherwise (see
  /// `LockPolicy`): on screen lock, before sleep and at the last logout; no idle or unused
  /// timer.
  var lockDefaults = LockPolicy(
    onScreenLock: true, beforeSleep: true, atLogout: true, afterIdleMinutes: 0,
    afterUnusedMinutes: 0)

  /// Why a configuration file was refused.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// `$XDG_CONFIG_HOME/keychaind/keychaind.conf`, or `~/.config/…`.
  static func defaultPath(_ environment: [String: String]) -> String {
    let base =
      environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
    return base + "/keychaind/keychaind.conf"
  }

  /// Reads `path`. A missing file is an empty configuration unless `required`.
  static func load(_ path: String, required: Bool) throws(Failure) -> Configuration {
    guard let data = FileManager.default.contents(atPath: path) else {
      if required { throw Failure(description: "\(path): cannot be read") }
      return Configuration()
    }
    return try parse(String(decoding: data, as: UTF8.self), origin: path)
  }

  /// Parses `key = value` lines; blank lines and `#` comments are skipped, and an unknown key
  /// is an error, so that a typo does not silently change nothing.
  static func parse(_ text: String, origin: String) throws(Failure) -> Configuration {
    var configuration = Configuration()
    for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let line = rawLine.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") { continue }
      let parts = line.split(separator: "=", maxSplits: 1)
      guard parts.count == 2 else {
        throw Failure(description: "\(origin):\(number + 1): expected 'key = value'")
      }
      let key = parts[0].trimmingCharacters(in: .whitespaces)
      let value = parts[1].trimmingCharacters(in: .whitespaces)
      switch key {
      case "pinentry": configuration.pinentry = value
      case "data-dir": configuration.dataDirectory = value
      case "tpm2-tcti": configuration.tpm2TCTI = value
      case "fido2-device": configuration.fido2Device = value
      case "kwallet", "access-notify":
        guard let on = Bool(value.lowercased()) else {
          throw Failure(description: "\(origin):\(number + 1): \(key) is true or false")
        }
        if key == "kwallet" { configuration.kwallet = on } else { configuration.accessNotify = on }
      case "access-control":
        guard let mode = AccessMode(rawValue: value.lowercased()) else {
          let modes = AccessMode.allCases.map(\.rawValue).joined(separator: ", ")
          throw Failure(description: "\(origin):\(number + 1): access-control is one of \(modes)")
        }
        configuration.accessControl = mode
      case _ where LockPolicy.settingNames.contains(key):
        guard let setting = LockPolicy.value(of: key, from: value) else {
          let kind =
            LockPolicy.switchNames.contains(key) ? "true or false" : "a number of minutes"
          throw Failure(description: "\(origin):\(number + 1): \(key) is \(kind)")
        }
        configuration.lockDefaults.settings[key] = setting
      default:
        throw Failure(description: "\(origin):\(number + 1): unknown setting '\(key)'")
      }
    }
    return configuration
  }

  /// The pinentry to use: `PINENTRY` from the environment, then the file, then `pinentry` on
  /// PATH; nil when either says `none`.
  func pinentryProgram(_ environment: [String: String]) -> String? {
    let chosen =
      environment["PINENTRY"].flatMap { $0.isEmpty ? nil : $0 } ?? pinentry
      ?? Self.desktopDialog(environment)
    return chosen == "none" ? nil : chosen
  }

  /// The dialog that looks like the desktop's own when none is configured: GNOME's system
  /// prompt (`gcr`, which GNOME Shell shows, with a check box for "Always allow") on GNOME and
  /// the desktops built on its shell, pinentry-qt on KDE when it is installed, else whatever
  /// `pinentry` is (Debian's alternative).
  static func desktopDialog(
    _ environment: [String: String], exists: (String) -> Bool = FileManager.default.fileExists
  ) -> String {
    let desktops = Set(
      (environment["XDG_CURRENT_DESKTOP"] ?? "").lowercased().split(separator: ":").map(String.init)
    )
    if !desktops.isDisjoint(with: ["gnome", "unity", "budgie", "pantheon"]) { return "gcr" }
    if desktops.contains("kde"), exists("/usr/bin/pinentry-qt") { return "pinentry-qt" }
    return "pinentry"
  }
}

extension Configuration {
  /// Sets `key` to `value` in the file at `path`: the last line that sets it is changed, or a
  /// line is added; every other line, comment and blank stays as the user wrote it. The new
  /// text replaces the old in one rename, after it is on disk, so a crash leaves one or the
  /// other. A missing file (and its directory, private) is created; a symbolic link (a dotfile
  /// manager's) is followed, so that the file it points at is the one changed.
  static func set(_ key: String, to value: String, in path: String) throws(Failure) {
    let path = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    let old = FileManager.default.contents(atPath: path) ?? Data()
    var lines = String(decoding: old, as: UTF8.self)
      .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    let setting = "\(key) = \(value)"
    let setsKey = { (line: String) in
      line.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces) == key
    }
    if let index = lines.lastIndex(where: setsKey) {
      lines[index] = setting
    } else {
      lines.append(setting)
    }
    let directory = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
      try SystemFiles.replace(
        atPath: path, with: Array((lines.joined(separator: "\n") + "\n").utf8))
    } catch {
      throw Failure(description: "\(path): cannot be written: \(error)")
    }
  }
}
