// SPDX-License-Identifier: MIT
//
// When a collection locks by itself. keychaind.conf sets the defaults; a collection may
// override any of them (`keychainctl lock-policy`), kept in the store beside the collection so
// that the choice survives restarts and goes with the store.

import Foundation
import GRDB

/// The automatic-lock settings of a collection. Each is optional: an unset one follows the
/// defaults (`over(_:)`). Names match keychaind.conf's keys (`settingNames`).
public struct LockPolicy: Equatable, Sendable {
  /// Lock when the login session is locked (screen lock).
  public var onScreenLock: Bool?
  /// Lock before the machine sleeps.
  public var beforeSleep: Bool?
  /// Lock when the user's last login session ends.
  public var atLogout: Bool?
  /// Lock after the session has been idle this many minutes; 0: never.
  public var afterIdleMinutes: Int?
  /// Lock after no secret of the collection was read or written for this many minutes; 0:
  /// never.
  public var afterUnusedMinutes: Int?

  public init(
    onScreenLock: Bool? = nil, beforeSleep: Bool? = nil, atLogout: Bool? = nil,
    afterIdleMinutes: Int? = nil, afterUnusedMinutes: Int? = nil
  ) {
    self.onScreenLock = onScreenLock
    self.beforeSleep = beforeSleep
    self.atLogout = atLogout
    self.afterIdleMinutes = afterIdleMinutes
    self.afterUnusedMinutes = afterUnusedMinutes
  }

  /// The switches and the timers (in minutes), by their keychaind.conf names.
  private static var switches: [(String, WritableKeyPath<LockPolicy, Bool?>)] {
    [
      ("lock-on-screen-lock", \.onScreenLock), ("lock-before-sleep", \.beforeSleep),
      ("lock-at-logout", \.atLogout),
    ]
  }
  private static var timers: [(String, WritableKeyPath<LockPolicy, Int?>)] {
    [("lock-after-idle", \.afterIdleMinutes), ("lock-after-unused", \.afterUnusedMinutes)]
  }

  /// The keychaind.conf names of the settings, switches first, then timers (in minutes).
  public static let switchNames = switches.map(\.0)
  public static let timerNames = timers.map(\.0)
  public static var settingNames: [String] { switchNames + timerNames }

  /// The settings that are set, by keychaind.conf name; switches as 0 or 1, timers in minutes.
  public var settings: [String: Int] {
    get {
      var values: [String: Int] = [:]
      for (name, path) in Self.switches { values[name] = self[keyPath: path].map { $0 ? 1 : 0 } }
      for (name, path) in Self.timers { values[name] = self[keyPath: path] }
      return values
    }
    set {
      for (name, path) in Self.switches { self[keyPath: path] = newValue[name].map { $0 != 0 } }
      for (name, path) in Self.timers { self[keyPath: path] = newValue[name] }
    }
  }

  /// A setting's value written as text (keychaind.conf, `keychainctl lock-policy`): `true`,
  /// `yes`, `false` or `no` for a switch (1 or 0), a whole number of minutes for a timer; nil
  /// for anything else, or a name that is not a setting.
  public static func value(of name: String, from text: String) -> Int? {
    if switchNames.contains(name) {
      return ["true": 1, "yes": 1, "false": 0, "no": 0][text]
    }
    guard timerNames.contains(name), let minutes = Int(text), minutes >= 0 else { return nil }
    return minutes
  }

  /// This policy with its unset settings taken from `defaults`.
  public func over(_ defaults: LockPolicy) -> LockPolicy {
    LockPolicy(
      onScreenLock: onScreenLock ?? defaults.onScreenLock,
      beforeSleep: beforeSleep ?? defaults.beforeSleep, atLogout: atLogout ?? defaults.atLogout,
      afterIdleMinutes: afterIdleMinutes ?? defaults.afterIdleMinutes,
      afterUnusedMinutes: afterUnusedMinutes ?? defaults.afterUnusedMinutes)
  }
}

extension KeychainStore {
  /// The settings `collection` overrides (none set: it follows keychaind.conf).
  public func lockPolicy(of collection: String) throws -> LockPolicy {
    guard collection != Self.sessionCollection else { return LockPolicy() }
    return try lookup(persistent) { db in
      guard
        let id = try Int64.fetchOne(
          db, sql: "SELECT id FROM collection WHERE name = ?", arguments: [collection])
      else { throw StoreError.noSuchCollection(collection) }
      return try Self.policy(
        Row.fetchAll(
          db, sql: "SELECT setting, value FROM lock_policy WHERE collectionID = ?",
          arguments: [id]))
    }
  }

  /// Every collection's overrides, by name, from one read (collections with none are absent).
  public func lockPolicies() throws -> [String: LockPolicy] {
    let rows = try lookup(persistent) { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT collection.name AS name, setting, value FROM lock_policy
          JOIN collection ON collection.id = lock_policy.collectionID
          """)
    }
    return Dictionary(grouping: rows) { $0["name"] as String }.mapValues(Self.policy)
  }

  /// Replaces the overrides of `collection` with `policy`'s set settings; durable on return.
  /// The in-memory session collection never locks, so it takes none.
  public func setLockPolicy(_ policy: LockPolicy, of collection: String) throws {
    guard collection != Self.sessionCollection else {
      throw StoreError.invalid("the session collection is never locked")
    }
    for (name, value) in policy.settings where value < 0 {
      throw StoreError.invalid("\(name) cannot be negative")
    }
    try commit { db in
      guard
        let id = try Int64.fetchOne(
          db, sql: "SELECT id FROM collection WHERE name = ?", arguments: [collection])
      else { throw StoreError.noSuchCollection(collection) }
      try db.execute(sql: "DELETE FROM lock_policy WHERE collectionID = ?", arguments: [id])
      for (name, value) in policy.settings {
        try db.execute(
          sql: "INSERT INTO lock_policy (collectionID, setting, value) VALUES (?, ?, ?)",
          arguments: [id, name, value])
      }
    }
  }

  /// A policy from `(setting, value)` rows; settings this version does not know are skipped.
  private static func policy(_ rows: [Row]) -> LockPolicy {
    var policy = LockPolicy()
    policy.settings = Dictionary(
      rows.map { ($0["setting"] as String, $0["value"] as Int) }, uniquingKeysWith: { $1 })
    return policy
  }
}
