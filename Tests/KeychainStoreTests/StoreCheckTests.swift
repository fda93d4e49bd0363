// SPDX-License-Identifier: MIT
//
// Damage that only some items show is named, never hidden: a check reports it by item, an
// unlock rebuilds a damaged search index from the items, and a damaged key record is damage,
// not a wrong password.

import Foundation
import GRDB
import KeychainCrypto
import Testing

@testable import KeychainStore

@Suite struct StoreCheckTests {
  /// A closed store with `login` (password "pw") holding three items; returns their ids.
  private func makeStore(_ fixture: StoreFixture) throws -> [ItemID] {
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let items = try (1...3).map { index in
      try store.createItem(
        in: "login", label: "item \(index)", attributes: ["n": "\(index)", "app": "check"],
        secret: secure("secret \(index)"), replace: false
      ).item
    }
    try store.close()
    return items
  }

  /// Changes the store's database behind its back, as damage would.
  private func tamper(_ fixture: StoreFixture, _ sql: String) throws {
    let queue = try DatabaseQueue(path: fixture.directory + "/keychain.db")
    try queue.write { db in try db.execute(sql: sql) }
    try queue.close()
  }

  @Test func aHealthyStoreChecksClean() throws {
    let fixture = try StoreFixture()
    _ = try makeStore(fixture)
    let report = StoreCheck.run(directory: fixture.directory, password: secure("pw"))
    #expect(report.isHealthy, "\(report.problems)")
    #expect(report.checked.contains("1 collection(s), 3 item(s)"), "\(report.checked)")
    #expect(report.checked.contains("every item of login decrypted"))
  }

  @Test func damagedIndexRowsAreNamedAndRebuiltOnUnlock() throws {
    let fixture = try StoreFixture()
    let items = try makeStore(fixture)
    try tamper(fixture, "DELETE FROM item_digest WHERE itemID = \(items[1].id)")
    let report = StoreCheck.run(directory: fixture.directory)
    #expect(report.problems.count == 1)
    #expect(report.problems.first?.description.contains("\(items[1])") == true, "\(report)")

    let store = try fixture.open()
    #expect(try store.searchItems(["n": "2"]).locked.isEmpty, "the damaged item is missed")
    try store.unlock("login", password: secure("pw"))
    let repair = try store.repairIndex("login")
    #expect(repair.rebuilt == [items[1]] && repair.unreadable.isEmpty)
    #expect(try store.searchItems(["n": "2"]).unlocked == [items[1]])
    #expect(try store.repairIndex("login").rebuilt.isEmpty)
    try store.close()
    #expect(StoreCheck.run(directory: fixture.directory).isHealthy)
  }

  @Test func aDamagedKeyRecordIsDamageNotAWrongPassword() throws {
    let fixture = try StoreFixture()
    _ = try makeStore(fixture)
    try tamper(
      fixture,
      "UPDATE collection SET wrappedKey = zeroblob(length(wrappedKey)) WHERE name = 'login'"
    )
    let store = try fixture.open()
    #expect {
      try store.unlock("login", password: secure("pw"))
    } throws: { error in
      guard case StoreError.corrupt(let what) = error else { return false }
      return what.contains("key record")
    }
    let report = StoreCheck.run(directory: fixture.directory, password: secure("pw"))
    #expect(report.problems.map(\.place) == ["collection login"])
    #expect(report.problems.first?.description.contains("key record is damaged") == true)
  }

  @Test func keySlotsAreCheckedAndADamagedOneIsNamed() throws {
    let fixture = try StoreFixture()
    _ = try makeStore(fixture)
    do {
      let store = try fixture.open()
      for label in ["paper", "safe"] {
        _ = try store.addRecoverySlot(to: "login", proof: .password(secure("pw")), label: label)
      }
      try store.close()
    }
    let healthy = StoreCheck.run(directory: fixture.directory)
    #expect(healthy.isHealthy, "\(healthy.problems)")
    #expect(healthy.checked.contains("2 key slot(s) of login intact"), "\(healthy.checked)")
    try tamper(
      fixture, "UPDATE key_slot SET wrappedKey = zeroblob(length(wrappedKey)) WHERE id = 2")
    let report = StoreCheck.run(directory: fixture.directory)
    #expect(report.problems.map(\.place) == ["collection login"])
    #expect(
      report.problems.first?.description.contains("key slot(s) 2 are damaged") == true,
      "\(report.problems)")
  }

  @Test func anItemThatDoesNotDecryptIsNamed() throws {
    let fixture = try StoreFixture()
    let items = try makeStore(fixture)
    try tamper(
      fixture, "UPDATE item SET sealed = zeroblob(length(sealed)) WHERE id = \(items[2].id)")
    #expect(StoreCheck.run(directory: fixture.directory).isHealthy, "found without the password")
    let report = StoreCheck.run(directory: fixture.directory, password: secure("pw"))
    #expect(report.problems.count == 1)
    #expect(report.problems.first?.description.contains("\(items[2])") == true, "\(report)")
  }

  /// The index's MACs cover digests in byte order, so the faster comparison must keep exactly
  /// the order stores were written with: unsigned bytes, a prefix first.
  @Test func digestsSortInTheOrderStoresWereWrittenWith() {
    var generator = SystemRandomNumberGenerator()
    let samples: [Data] =
      (0..<200).map { _ in
        Data(
          (0..<Int.random(in: 0...4, using: &generator)).map { _ in
            [0x00, 0x01, 0x7F, 0x80, 0xFF].randomElement(using: &generator)!
          })
      } + [Data(), Data([0]), Data([0, 0]), Data([0xFF]), Data([0x80, 0])]
    for first in samples {
      for second in samples {
        #expect(
          StoreKeys.bytesPrecede(first, second) == first.lexicographicallyPrecedes(second),
          "\(Array(first)) against \(Array(second))")
      }
    }
  }

  /// An item record's texts must be UTF-8: one that is not is damage, named as such; any valid
  /// one, the replacement character included, reads back as written.
  @Test func anItemRecordWithTextThatIsNotUTF8IsCorrupt() throws {
    func record(label: [UInt8]) -> SecureBytes {
      // Version 1, no attributes, the label, an empty content type, an empty secret.
      SecureBytes(
        copying: [1, 0, 0, 0, 0, 0, 0, 0, UInt8(label.count)] + label
          + [UInt8](repeating: 0, count: 8))
    }
    for valid in ["ok", "é ☃ \u{FFFD}", ""] {
      #expect(try ItemPayload(decoding: record(label: Array(valid.utf8))).label == valid)
    }
    // A stray continuation byte, an overlong "/", a surrogate, a truncated sequence.
    for invalid: [UInt8] in [[0x6F, 0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x98]] {
      #expect(throws: StoreError.self) { try ItemPayload(decoding: record(label: invalid)) }
    }
  }
}
