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

  /// The keychaind.conf names of the settings, switches first, then timers (in minutes).
  public static let switchNames = ["lock-on-screen-lock", "lock-before-sleep", "lock-at-logout"]
  public static let timerNames = ["lock-after-idle", "lock-after-unused"]
  public static var settingNames: [String] { switchNames + timerNames }

  /// The settings that are set, by keychaind.conf name; switches as 0 or 1, timers in minutes.
  public var settings: [String: Int] {
    get {
      let values: [(String, Int?)] = [
        ("lock-on-screen-lock", onScreenLock.map { $0 ? 1 : 0 }),
        ("lock-before-sleep", beforeSleep.map { $0 ? 1 : 0 }),
        ("lock-at-logout", atLogout.map { $0 ? 1 : 0 }),
        ("lock-after-idle", afterIdleMinutes), ("lock-after-unused", afterUnusedMinutes),
      ]
      return Dictionary(
        uniqueKeysWithValues: values.compactMap { name, value in value.map { (name, $0) } })
    }
    set {
      onScreenLock = newValue["lock-on-screen-lock"].map { $0 != 0 }
      beforeSleep = newValue["lock-before-sleep"].map { $0 != 0 }
      atLogout = newValue["lock-at-logout"].map { $0 != 0 }
      afterIdleMinutes = newValue["lock-after-idle"]
      afterUnusedMinutes = newValue["lock-after-unused"]
    }
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
