// SPDX-License-Identifier: MIT
//
// The keychainctl command lines keychaind's errors, notifications and log lines tell a person
// to run, spelled here once: a test parses every one of them with keychainctl's own parser,
// so a renamed command or option cannot leave the daemon giving advice that fails.

/// The keychainctl command lines keychaind's messages name.
public enum KeychainctlCommand {
  /// Sets the access mode; lowering it asks for the keyring's password on standard input.
  public static func accessMode(_ mode: String) -> String {
    "keychainctl access mode \(mode) --password-stdin"
  }

  /// The applications keychaind knows, with their keys and grants.
  public static let accessList = "keychainctl access list"

  /// The command that allows a program, before its key and items are filled in.
  public static let accessAllow = "keychainctl access allow"

  /// Allows the application `key` (`PROGRAM` when it has none) the objects at `paths`.
  public static func accessAllow(app key: String, _ paths: [String], passwordStdin: Bool = true)
    -> String
  {
    "\(accessAllow) --app '\(key.isEmpty ? "PROGRAM" : key)' " + paths.joined(separator: " ")
      + (passwordStdin ? " --password-stdin" : "")
  }

  /// Adds the application `key` to the access group `group` (its name without `group:`).
  public static func accessGroupAdd(_ group: String, app key: String) -> String {
    "keychainctl access group add \(group) --app '\(key)'"
  }

  /// The audit log's last ten minutes: which program was refused.
  public static let auditRecent = "keychainctl audit --since 10m"

  /// Checks the audit log's chain and names what was changed.
  public static let auditVerify = "keychainctl audit verify"

  /// Unlocks with a password read from standard input, for when no dialog can be shown.
  public static let unlockFromStandardInput = "keychainctl unlock --password-stdin"

  /// The store's integrity check, with details.
  public static let check = "keychainctl check"

  /// Every command line above, with sample arguments where it takes some: what the test runs
  /// through keychainctl's parser. (`accessAllow` alone names the command the full lines
  /// start with.)
  public static var samples: [String] {
    [
      accessMode("audit"), accessList,
      accessAllow(app: "exe:/usr/bin/secret-tool", ["/org/freedesktop/secrets/collection/login/1"]),
      accessAllow(app: "", ["/org/freedesktop/secrets/collection/login"], passwordStdin: false),
      accessGroupAdd("shared", app: "flatpak:org.example.App"), auditRecent, auditVerify,
      unlockFromStandardInput, check,
    ]
  }
}
