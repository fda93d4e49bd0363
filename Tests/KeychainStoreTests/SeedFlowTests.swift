// SPDX-License-Identifier: MIT
//
// The seeds' flows on a store in a temp dir: add, search, duplicate, update, delete, keys.

import Foundation
import KeychainCore
import KeychainStore
import Testing

@Suite struct SeedFlowTests {
  @Test func internetPasswordLifecycle() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let add: [String: Any] = [
      "class": "inet", "acct": "alice", "srvr": "www.example.com",
      "v_Data": "s3cret".data(using: .utf8)!,
    ]
    try store.add(try QueryParser.add(add), to: "login")

    let search = try QueryParser.search([
      "class": "inet", "srvr": "www.example.com", "m_Limit": "m_LimitOne", "r_Attributes": true,
      "r_Data": true,
    ])
    let found = try store.copyMatching(search)
    let result = try #require(
      ResultShaper.result(for: found, query: search) { _ in nil } as? [String: Any])
    #expect(result["acct"] as? String == "alice")
    #expect(result["v_Data"] as? Data == "s3cret".data(using: .utf8)!)

    #expect(throws: KeychainStatus.duplicateItem) {
      try store.add(try QueryParser.add(add), to: "login")
    }
    // A different account is not a duplicate.
    var other = add
    other["acct"] = "bob"
    try store.add(try QueryParser.add(other), to: "login")

    let (query, changes) = try QueryParser.update(
      ["class": "inet", "srvr": "www.example.com", "acct": "alice"],
      changes: ["v_Data": "n3w".data(using: .utf8)!])
    try store.update(query, changes)
    #expect(try store.copyMatching(search).first?.data != nil)
    let alice = try QueryParser.search(["class": "inet", "acct": "alice", "r_Data": true])
    #expect(try store.copyMatching(alice).first?.data == Array("n3w".utf8))

    // An update that would duplicate bob's primary key is refused and changes nothing.
    let (toBob, rename) = try QueryParser.update(
      ["class": "inet", "acct": "alice"], changes: ["acct": "bob"])
    #expect(throws: KeychainStatus.duplicateItem) { try store.update(toBob, rename) }
    #expect(try store.copyMatching(alice).count == 1)

    try store.delete(try QueryParser.delete(["class": "inet", "srvr": "www.example.com"]))
    #expect(throws: KeychainStatus.itemNotFound) { try store.copyMatching(search) }
  }

  @Test func keysAreStoredByApplicationTag() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let tag = "com.example.keys.mykey".data(using: .utf8)!
    let keyBytes: [UInt8] = Array(0..<64)
    try store.add(
      try QueryParser.add(["class": "keys", "atag": tag, "type": "42", "v_Data": Data(keyBytes)]),
      to: "login")
    let get = try QueryParser.search(["class": "keys", "atag": tag, "type": "42", "r_Data": true])
    #expect(try store.copyMatching(get).first?.data == keyBytes)
    let wrongType = try QueryParser.search(["class": "keys", "atag": tag, "type": "73"])
    #expect(throws: KeychainStatus.itemNotFound) { try store.copyMatching(wrongType) }
  }

  @Test func limitsCaseAndLabelsInQueries() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    for n in 0..<5 {
      try store.add(
        try QueryParser.add([
          "class": "genp", "svce": "Mail", "acct": "user\(n)", "labl": "L\(n % 2)",
        ]), to: "login")
    }
    #expect(
      try store.copyMatching(
        try QueryParser.search(["class": "genp", "svce": "Mail", "m_Limit": 3])
      ).count == 3)
    #expect(
      try store.copyMatching(try QueryParser.search(["class": "genp", "m_Limit": "m_LimitAll"]))
        .count == 5)
    #expect(
      try store.copyMatching(
        try QueryParser.search(["class": "genp", "labl": "L1", "m_Limit": "m_LimitAll"])
      ).count == 2)
    #expect(throws: KeychainStatus.itemNotFound) {
      try store.copyMatching(try QueryParser.search(["class": "genp", "svce": "mail"]))
    }
    let insensitive = try QueryParser.search([
      "class": "genp", "svce": "mail", "m_CaseInsensitive": true, "m_Limit": "m_LimitAll",
    ])
    #expect(try store.copyMatching(insensitive).count == 5)
    // A persistent reference finds exactly its item.
    let one = try #require(
      try store.copyMatching(try QueryParser.search(["class": "genp", "acct": "user3"])).first)
    let byRef = try store.copyMatching(
      try QueryParser.search(["class": "genp", "v_PersistentRef": Data(one.persistentReference)]))
    #expect(byRef.first?.attributes[.account] == .string("user3"))
    #expect(throws: KeychainStatus.itemNotFound) {
      try store.copyMatching(try QueryParser.search(["class": "inet"]))
    }
  }

  /// A store cannot ask for a password, so locked items are what `kSecUseAuthenticationUI`
  /// decides: `…Allow` and `…Fail` say `errSecInteractionNotAllowed` when only a locked item
  /// could match, `…Skip` leaves it out (`errSecItemNotFound`); unlocked matches come back in
  /// every case.
  @Test func lockedItemsFollowKSecUseAuthenticationUI() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let work = try store.createCollection(label: "Work", password: secure("work"))
    try store.add(
      try QueryParser.add(["class": "genp", "svce": "mail", "acct": "alice"]), to: "login")
    let bob = try store.add(
      try QueryParser.add(["class": "genp", "svce": "mail", "acct": "bob"]), to: work.name)
    try store.lock(work.name)

    func search(_ extra: [String: Any]) throws -> [FoundItem] {
      try store.copyMatching(
        try QueryParser.search(["class": "genp", "m_Limit": "m_LimitAll"].merging(extra) { $1 }))
    }
    for ui in ["u_AuthUIA", "u_AuthUIF", "u_AuthUIS"] {
      let both = try search(["svce": "mail", "u_AuthUI": ui])
      #expect(both.map { $0.attributes[.account] } == [.string("alice")], "\(ui)")
    }
    for ui in ["u_AuthUIA", "u_AuthUIF"] {
      #expect(throws: KeychainStatus.interactionNotAllowed, "\(ui)") {
        try search(["acct": "bob", "u_AuthUI": ui])
      }
      #expect(throws: KeychainStatus.interactionNotAllowed, "\(ui)") {
        try search(["v_PersistentRef": Data(bob.persistentReference), "u_AuthUI": ui])
      }
    }
    #expect(throws: KeychainStatus.itemNotFound) {
      try search(["acct": "bob", "u_AuthUI": "u_AuthUIS"])
    }
    #expect(throws: KeychainStatus.itemNotFound) {
      try search(["v_PersistentRef": Data(bob.persistentReference), "u_AuthUI": "u_AuthUIS"])
    }
    #expect(throws: KeychainStatus.param("kSecUseAuthenticationUI has an unknown value")) {
      try QueryParser.search(["class": "genp", "u_AuthUI": "u_AuthUIX"])
    }
    // Unlocked, the item is there for every setting.
    try store.unlock(work.name, password: secure("work"))
    #expect(try search(["acct": "bob", "u_AuthUI": "u_AuthUIS"]).count == 1)
  }
}
