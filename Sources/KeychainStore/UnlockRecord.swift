// SPDX-License-Identifier: MIT
//
// How the login collection was last unlocked, so that `keychainctl doctor` can say whether
// login unlocked it at this boot and by which route. Kept in the store's `meta` table: no
// secret, just a route name, a time and the kernel's boot id.

import Foundation
import GRDB

/// One unlock of the login collection.
public struct UnlockRecord: Codable, Equatable, Sendable {
  /// How: one of `Route`'s.
  public var route: String
  public var time: Date
  /// /proc/sys/kernel/random/boot_id when it happened.
  public var bootID: String

  public init(route: String, time: Date, bootID: String) {
    self.route = route
    self.time = time
    self.bootID = bootID
  }

  /// The routes, as recorded and as `keychainctl doctor` shows them.
  public enum Route {
    /// pam_gnome_keyring.so, in the program that runs the PAM stack (gdm, login…).
    public static func pamGnomeKeyring(in program: String) -> String {
      "pam_gnome_keyring (in \(program))"
    }
    public static let pamExec = "pam_exec (keychainctl pam-unlock)"
    public static let passwordDialog = "password dialog"
    public static let masterPassword = "UnlockWithMasterPassword"
    public static let commandLine = "keychaind --unlock"
    public static let accessGrant = "keychainctl access allow"
    public static let recoveryKey = "recovery key (keychainctl unlock --recovery)"
    public static let tpm2 = "TPM slot"
    public static let fido2 = "FIDO2 slot"
    public static let tpm2AndFIDO2 = "TPM and FIDO2 slot"

    /// Whether `route` is a login's: one of the PAM ones.
    public static func isLogin(_ route: String) -> Bool { route.hasPrefix("pam_") }
  }

  /// This boot's id, or "" where the kernel does not say.
  public static var currentBootID: String {
    ((try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? "")
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

extension KeychainStore {
  private static let unlockRecordName = "login-unlock"

  /// Remembers that the login collection was just unlocked by `route`; durable on return.
  public func recordLoginUnlock(route: String) throws {
    let record = UnlockRecord(route: route, time: now(), bootID: UnlockRecord.currentBootID)
    let value = try JSONEncoder().encode(record)
    try commit { db in
      try db.execute(
        sql: "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)",
        arguments: [Self.unlockRecordName, value])
    }
  }

  /// The last unlock of the login collection, if one was recorded.
  public func lastLoginUnlock() throws -> UnlockRecord? {
    let value = try lookup(persistent) { db in
      try Data.fetchOne(
        db, sql: "SELECT value FROM meta WHERE name = ?", arguments: [Self.unlockRecordName])
    }
    return try value.map { try JSONDecoder().decode(UnlockRecord.self, from: $0) }
  }
}
