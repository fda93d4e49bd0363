// SPDX-License-Identifier: MIT
//
// The audit chain's key and anchor in the store: one key shared by every collection, the
// anchor kept beside it in each unlocked collection that holds that key, read back after
// reopening, with its floor (where the log must start) when it has one, and a key record from
// before anchors (32 bytes) still read.

import Foundation
import KeychainAccess
import KeychainCrypto
import KeychainStore
import Testing

@Suite struct AuditAnchorStoreTests {
  @Test func theAnchorIsKeptBesideTheKeyInEveryCollectionThatHoldsIt() throws {
    let fixture = try StoreFixture()
    let anchor = AuditChain.Anchor(seq: 0x0102_0304_0506_0708, mac: Array(0..<32))
    let key: SecureBytes
    do {
      let store = try fixture.open()
      try store.createCollection(name: "login", label: "Login", password: secure("pw"))
      try store.createCollection(name: "work", label: "Work", password: secure("pw2"))
      key = try store.auditKey(from: "login", known: nil)
      #expect(key.count == 32)
      #expect(try store.auditKey(from: "work", known: key) == key)
      #expect(try store.auditAnchor(in: "login") == nil, "no anchor before one is kept")
      #expect(try store.keepAuditAnchor(anchor, auditKey: key) == 2)
      // Another key's anchor goes nowhere.
      #expect(try store.keepAuditAnchor(anchor, auditKey: SecureBytes.random(count: 32)) == 0)
    }
    let store = try fixture.open()
    try store.unlock("login", password: secure("pw"))
    #expect(try store.auditAnchor(in: "login") == anchor)
    #expect(try store.auditKey(from: "login", known: nil) == key, "the key reads past its anchor")
    #expect(throws: StoreError.self) { try store.auditAnchor(in: "work") }
    // Locked collections keep the anchor they had.
    let later = AuditChain.Anchor(seq: 9, mac: Array(repeating: 7, count: 32))
    #expect(try store.keepAuditAnchor(later, auditKey: key) == 1)
    try store.unlock("work", password: secure("pw2"))
    #expect(try store.auditAnchor(in: "work") == anchor)
    #expect(try store.auditAnchor(in: "login") == later)
  }

  @Test func theFloorIsKeptWithTheAnchor() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let key = try store.auditKey(from: "login", known: nil)
    let anchor = AuditChain.Anchor(
      seq: 900, mac: Array(repeating: 1, count: 32),
      floor: AuditChain.Floor(seq: 300, prev: Array(repeating: 2, count: 32)))
    #expect(try store.keepAuditAnchor(anchor, auditKey: key) == 1)
    #expect(try store.auditAnchor(in: "login") == anchor)
    // One kept before floors were: read without one.
    let old = AuditChain.Anchor(seq: 5, mac: Array(repeating: 3, count: 32))
    try store.keepAuditAnchor(old, auditKey: key)
    #expect(try store.auditAnchor(in: "login")?.floor == nil)
  }
}
