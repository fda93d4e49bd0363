// SPDX-License-Identifier: MIT
//
// Per-collection lock policies and the record of the last login unlock: kept in the store,
// read back after reopening, gone with their collection.

import Foundation
import KeychainStore
import Testing

@Suite struct LockPolicyStoreTests {
  @Test func policiesPersistOverrideDefaultsAndGoWithTheirCollection() throws {
    let fixture = try StoreFixture()
    do {
      let store = try fixture.open()
      try store.createCollection(name: "login", label: "Login", password: secure("pw"))
      try store.createCollection(name: "work", label: "Work", password: secure("pw"))
      #expect(try store.lockPolicy(of: "work") == LockPolicy())
      try store.setLockPolicy(
        LockPolicy(onScreenLock: false, afterUnusedMinutes: 5), of: "work")
    }
    let store = try fixture.open()
    let own = try store.lockPolicy(of: "work")
    #expect(own == LockPolicy(onScreenLock: false, afterUnusedMinutes: 5))
    #expect(try store.lockPolicies() == ["work": own])
    let defaults = LockPolicy(
      onScreenLock: true, beforeSleep: true, atLogout: true, afterIdleMinutes: 0,
      afterUnusedMinutes: 0)
    #expect(
      own.over(defaults)
        == LockPolicy(
          onScreenLock: false, beforeSleep: true, atLogout: true, afterIdleMinutes: 0,
          afterUnusedMinutes: 5))
    // Setting replaces: what is not named follows the defaults again.
    try store.setLockPolicy(LockPolicy(beforeSleep: false), of: "work")
    #expect(try store.lockPolicy(of: "work") == LockPolicy(beforeSleep: false))
    try store.deleteCollection("work")
    #expect(try store.lockPolicies().isEmpty)
    #expect(throws: StoreError.self) { try store.lockPolicy(of: "work") }
  }

  @Test func theSessionCollectionAndNegativeMinutesAreRefused() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    // The checkpoint after the writes, now, rather than in the middle of the comparison.
    try store.checkpoint()
    let before = try fixture.allFileBytes()
    #expect(throws: StoreError.self) {
      try store.setLockPolicy(LockPolicy(afterIdleMinutes: 1), of: "session")
    }
    #expect(throws: StoreError.self) {
      try store.setLockPolicy(LockPolicy(afterIdleMinutes: -1), of: "login")
    }
    #expect(throws: StoreError.self) {
      try store.setLockPolicy(LockPolicy(afterIdleMinutes: 1), of: "nope")
    }
    #expect(try fixture.allFileBytes() == before)
  }

  @Test func theLastLoginUnlockIsRemembered() throws {
    let fixture = try StoreFixture()
    do {
      let store = try fixture.open()
      #expect(try store.lastLoginUnlock() == nil)
      try store.recordLoginUnlock(route: "pam_gnome_keyring (in gdm-session-worker)")
    }
    let record = try #require(try fixture.open().lastLoginUnlock())
    #expect(record.route == "pam_gnome_keyring (in gdm-session-worker)")
    #expect(record.time == Date(timeIntervalSince1970: 1_800_000_000))
    #expect(record.bootID == UnlockRecord.currentBootID && !record.bootID.isEmpty)
  }
}
