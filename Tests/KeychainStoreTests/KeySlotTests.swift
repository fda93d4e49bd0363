// SPDX-License-Identifier: MIT
//
// Key slots in the store: a recovery key opens what the password opens, survives a password
// change, sets a new password when the old one is lost, and a wrong or damaged one changes
// nothing.

import Foundation
import KeychainCrypto
import KeychainStore
import Testing

struct KeySlotTests {
  /// A store with `login` (password "right") holding one item, and a recovery slot.
  private static func storeWithRecovery(_ fixture: StoreFixture) throws
    -> (KeychainStore, ItemID, KeySlot, RecoveryKey)
  {
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "L", password: secure("right"))
    let (item, _) = try store.createItem(
      in: "login", label: "x", attributes: ["a": "b"], secret: secure("s"), replace: false)
    let (slot, key) = try store.addRecoverySlot(
      to: "login", proof: .password(secure("right")), label: "paper in the drawer")
    return (store, item, slot, key)
  }

  @Test func aRecoveryKeyIsShownAsEightGroupsAndReadBackAsTyped() throws {
    let key = RecoveryKey.generate()
    let text = String(decoding: key.text.copyBytes(), as: UTF8.self)
    let groups = text.split(separator: "-")
    #expect(groups.count == 8)
    #expect(groups.allSatisfy { $0.count == 8 && $0.allSatisfy("cbdefghijklnrtuv".contains) })
    // Upper case, without dashes, with spaces and a newline: the same key.
    let typed = text.uppercased().replacingOccurrences(of: "-", with: " ") + "\n"
    #expect(try RecoveryKey(parsing: secure(typed)) == key)
    #expect(try RecoveryKey(parsing: secure(String(text.filter { $0 != "-" }))) == key)
    #expect(RecoveryKey.generate() != key)
  }

  @Test func aMistypedRecoveryKeyIsRefusedWithoutBeingRepeated() throws {
    let text = String(decoding: RecoveryKey.generate().text.copyBytes(), as: UTF8.self)
    for bad in [String(text.dropLast()), text + "c", "a" + text.dropFirst(), ""] {
      do {
        _ = try RecoveryKey(parsing: secure(bad))
        Issue.record("'\(bad.count)' letters were taken for a recovery key")
      } catch let error as StoreError {
        guard case .invalid(let message) = error else {
          Issue.record("unexpected \(error)")
          continue
        }
        #expect(message.contains("64 letters"))
        #expect(bad.isEmpty || !message.contains(bad.prefix(8)))
      }
    }
  }

  @Test func theRecoveryKeyOpensTheCollectionAndNotesItsUse() throws {
    let fixture = try StoreFixture()
    let (store, item, slot, key) = try Self.storeWithRecovery(fixture)
    #expect(slot.id >= 1)
    try store.lock("login")
    fixture.advance(seconds: 60)
    try store.unlock("login", with: .recoveryKey(key))
    #expect(try store.secret(of: item).secret == secure("s"))
    let slots = try store.keySlots(of: "login")
    #expect(slots.map(\.kind) == [.password, .recovery])
    #expect(slots[1].label == "paper in the drawer")
    #expect(slots[1].lastUsed == slot.created.addingTimeInterval(60))
    #expect(slots[0].lastUsed == nil)
  }

  @Test func aWrongRecoveryKeyChangesNoByte() throws {
    let fixture = try StoreFixture()
    let (store, _, slot, _) = try Self.storeWithRecovery(fixture)
    try store.lock("login")
    try store.checkpoint()
    let before = try fixture.allFileBytes()
    let other = RecoveryKey.generate()
    #expect(throws: StoreError.wrongRecoveryKey) {
      try store.unlock("login", with: .recoveryKey(other))
    }
    #expect(throws: StoreError.wrongRecoveryKey) {
      try store.resetPassword("login", recoveryKey: other, to: secure("new"))
    }
    #expect(throws: StoreError.wrongRecoveryKey) {
      try store.testSlot(slot.id, of: "login", with: .recoveryKey(other))
    }
    #expect(throws: StoreError.wrongRecoveryKey) {
      try store.addRecoverySlot(to: "login", proof: .recoveryKey(other), label: "")
    }
    #expect(throws: StoreError.wrongPassword) {
      try store.removeSlot(slot.id, of: "login", proof: .password(secure("wrong")))
    }
    #expect(store.isLocked("login"))
    #expect(try fixture.allFileBytes() == before)
  }

  @Test func aLostPasswordIsReplacedWithTheRecoveryKeyAndTheKeyStaysValid() throws {
    let fixture = try StoreFixture()
    let item: ItemID
    let key: RecoveryKey
    do {
      let (store, made, _, recovery) = try Self.storeWithRecovery(fixture)
      (item, key) = (made, recovery)
      try store.lock("login")
      try store.resetPassword("login", recoveryKey: key, to: secure("new"))
    }
    let reopened = try fixture.open()
    #expect(throws: StoreError.wrongPassword) {
      try reopened.unlock("login", password: secure("right"))
    }
    try reopened.unlock("login", password: secure("new"))
    #expect(try reopened.secret(of: item).secret == secure("s"))
    // A password change leaves the recovery slot as it was.
    try reopened.changePassword("login", from: secure("new"), to: secure("newer"))
    try reopened.lock("login")
    try reopened.unlock("login", with: .recoveryKey(key))
    #expect(try reopened.secret(of: item).secret == secure("s"))
  }

  @Test func slotsAreRemovedWithProofAndThePasswordSlotStays() throws {
    let fixture = try StoreFixture()
    let (store, _, slot, key) = try Self.storeWithRecovery(fixture)
    let (second, secondKey) = try store.addRecoverySlot(
      to: "login", proof: .recoveryKey(key), label: "")
    // Each key opens its own slot only.
    try store.testSlot(second.id, of: "login", with: .recoveryKey(secondKey))
    #expect(throws: StoreError.wrongRecoveryKey) {
      try store.testSlot(second.id, of: "login", with: .recoveryKey(key))
    }
    #expect(throws: StoreError.self) {
      try store.testSlot(second.id, of: "login", with: .password(secure("right")))
    }
    try store.testSlot(KeySlot.passwordID, of: "login", with: .password(secure("right")))
    #expect(throws: StoreError.self) {
      try store.removeSlot(KeySlot.passwordID, of: "login", proof: .recoveryKey(key))
    }
    try store.removeSlot(slot.id, of: "login", proof: .recoveryKey(key))
    #expect(try store.keySlots(of: "login").map(\.id) == [KeySlot.passwordID, second.id])
    try store.lock("login")
    #expect(throws: StoreError.wrongRecoveryKey) {
      try store.unlock("login", with: .recoveryKey(key))
    }
    #expect(throws: StoreError.self) {
      try store.removeSlot(slot.id, of: "login", proof: .password(secure("right")))
    }
  }

  @Test func aDamagedSlotIsReportedAsDamageNotAsAWrongKey() throws {
    let fixture = try StoreFixture()
    let (store, _, _, key) = try Self.storeWithRecovery(fixture)
    try store.lock("login")
    let sql = "UPDATE key_slot SET salt = zeroblob(16);"
    #expect(try runSQLite(fixture.directory + "/keychain.db", sql) == 0)
    do {
      try store.unlock("login", with: .recoveryKey(key))
      Issue.record("a damaged slot opened")
    } catch let error as StoreError {
      guard case .corrupt(let message) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(message.contains("key slot"))
    }
    try store.unlock("login", password: secure("right"))
  }

  @Test func deletingACollectionTakesItsSlots() throws {
    let fixture = try StoreFixture()
    let (store, _, _, key) = try Self.storeWithRecovery(fixture)
    try store.deleteCollection("login")
    try store.createCollection(name: "login", label: "L", password: secure("other"))
    #expect(try store.keySlots(of: "login").map(\.kind) == [.password])
    try store.lock("login")
    #expect(throws: StoreError.wrongRecoveryKey) {
      try store.unlock("login", with: .recoveryKey(key))
    }
  }
}
