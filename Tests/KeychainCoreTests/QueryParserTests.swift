// SPDX-License-Identifier: MIT

import Foundation
import KeychainCore
import Testing

// Apple's raw values of the constants the seeds use.
let kSecClass = "class"
let kSecClassGenericPassword = "genp"
let kSecClassInternetPassword = "inet"
let kSecClassKey = "keys"
let kSecAttrAccount = "acct"
let kSecAttrService = "svce"
let kSecAttrServer = "srvr"
let kSecAttrProtocol = "ptcl"
let kSecAttrPort = "port"
let kSecAttrLabel = "labl"
let kSecAttrApplicationTag = "atag"
let kSecAttrKeyType = "type"
let kSecAttrKeyTypeRSA = "42"
let kSecAttrCreationDate = "cdat"
let kSecValueData = "v_Data"
let kSecReturnData = "r_Data"
let kSecReturnAttributes = "r_Attributes"
let kSecReturnRef = "r_Ref"
let kSecReturnPersistentRef = "r_PersistentRef"
let kSecMatchLimit = "m_Limit"
let kSecMatchLimitOne = "m_LimitOne"
let kSecMatchLimitAll = "m_LimitAll"
let kSecMatchCaseInsensitive = "m_CaseInsensitive"

@Suite struct QueryParserTests {
  @Test func theSeedsAddQueryParses() throws {
    let password = "s3cret".data(using: .utf8)!
    let item = try QueryParser.add([
      kSecClass: kSecClassInternetPassword, kSecAttrAccount: "alice",
      kSecAttrServer: "www.example.com", kSecValueData: password,
    ])
    #expect(item.itemClass == .internetPassword)
    #expect(item.attributes == [.account: .string("alice"), .server: .string("www.example.com")])
    #expect(item.data == Array(password))
    #expect(item.primaryKey == item.attributes)
  }

  @Test func theSeedsSearchQueryParses() throws {
    let query = try QueryParser.search([
      kSecClass: kSecClassInternetPassword, kSecAttrServer: "www.example.com",
      kSecMatchLimit: kSecMatchLimitOne, kSecReturnAttributes: true, kSecReturnData: true,
    ])
    #expect(query.itemClass == .internetPassword)
    #expect(query.attributes == [.server: .string("www.example.com")])
    #expect(query.matchLimit == .one)
    #expect(query.returns == [.attributes, .data])
  }

  @Test func theSeedsKeyQueriesParse() throws {
    let tag = "com.example.keys.mykey".data(using: .utf8)!
    let query = try QueryParser.search([
      kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecAttrKeyType: kSecAttrKeyTypeRSA,
      kSecReturnRef: true, kSecMatchLimit: kSecMatchLimitAll,
    ])
    #expect(query.attributes == [.applicationTag: .data(Array(tag)), .keyType: .string("42")])
    #expect(query.matchLimit == .all && query.returns == .reference)
    // Key types may be given as numbers too.
    #expect(
      try QueryParser.search([kSecClass: kSecClassKey, kSecAttrKeyType: 42]).attributes[.keyType]
        == .string("42"))
  }

  @Test func limitsAndFlags() throws {
    #expect(try QueryParser.search([kSecClass: kSecClassGenericPassword]).matchLimit == .one)
    #expect(
      try QueryParser.search([kSecClass: kSecClassGenericPassword, kSecMatchLimit: 5]).matchLimit
        == .count(5))
    #expect(
      try QueryParser.search([kSecClass: kSecClassGenericPassword, kSecMatchLimit: 1]).matchLimit
        == .one)
    let insensitive = try QueryParser.search([
      kSecClass: kSecClassGenericPassword, kSecMatchCaseInsensitive: true,
    ])
    #expect(insensitive.caseInsensitive)
    #expect(try QueryParser.delete([kSecClass: kSecClassGenericPassword]).matchLimit == .all)
    let (query, changes) = try QueryParser.update(
      [kSecClass: kSecClassGenericPassword, kSecAttrService: "svc"],
      changes: [kSecValueData: Data([1, 2]), kSecAttrLabel: "new"])
    #expect(query.attributes == [.service: .string("svc")])
    #expect(changes.data == [1, 2] && changes.attributes == [.label: .string("new")])
  }

  nonisolated(unsafe) static let refused: [(String, [String: Any])] = [
    ("no class", [kSecAttrAccount: "a"]),
    ("unknown class", [kSecClass: "nope"]),
    ("unknown key", [kSecClass: kSecClassGenericPassword, "acount": "typo"]),
    ("string attribute given a number", [kSecClass: kSecClassGenericPassword, kSecAttrAccount: 5]),
    (
      "number attribute given text", [kSecClass: kSecClassInternetPassword, kSecAttrPort: "eighty"]
    ),
    ("attribute of another class", [kSecClass: kSecClassGenericPassword, kSecAttrServer: "x"]),
    ("limit zero", [kSecClass: kSecClassGenericPassword, kSecMatchLimit: 0]),
    ("limit nonsense", [kSecClass: kSecClassGenericPassword, kSecMatchLimit: "many"]),
    ("return flag not boolean", [kSecClass: kSecClassGenericPassword, kSecReturnData: "yes"]),
    ("data in a search", [kSecClass: kSecClassGenericPassword, kSecValueData: Data()]),
  ]

  @Test(arguments: refused.indices)
  func nonsenseIsRefusedWithParam(_ index: Int) {
    let (what, query) = Self.refused[index]
    #expect(throws: KeychainStatus.param, "\(what)") { try QueryParser.search(query) }
  }

  @Test func contradictionsAreRefusedWithParam() {
    #expect(throws: KeychainStatus.param) {
      try QueryParser.add([kSecClass: kSecClassGenericPassword, kSecMatchLimit: kSecMatchLimitAll])
    }
    #expect(throws: KeychainStatus.param) {
      try QueryParser.add([kSecClass: kSecClassGenericPassword, kSecAttrCreationDate: Date()])
    }
    #expect(throws: KeychainStatus.param) {
      try QueryParser.delete([kSecClass: kSecClassGenericPassword, kSecReturnData: true])
    }
    #expect(throws: KeychainStatus.param) {
      try QueryParser.delete([
        kSecClass: kSecClassGenericPassword, kSecMatchLimit: kSecMatchLimitOne,
      ])
    }
    #expect(throws: KeychainStatus.param) {
      try QueryParser.update([kSecClass: kSecClassGenericPassword], changes: [:])
    }
    #expect(throws: KeychainStatus.param) {
      try QueryParser.update(
        [kSecClass: kSecClassGenericPassword], changes: [kSecClass: kSecClassKey])
    }
    #expect(throws: KeychainStatus.param) {
      try QueryParser.update([kSecClass: kSecClassGenericPassword], changes: [kSecReturnData: true])
    }
  }

  @Test func errorsExplainThemselvesWithoutValues() {
    do {
      _ = try QueryParser.search([kSecClass: kSecClassGenericPassword, "hunter2-typo": "hunter2"])
    } catch {
      #expect(error.code == -50)
      #expect(error.description.contains("unknown key"))
      #expect(error.message == "One or more parameters passed to a function were not valid.")
    }
  }

  @Test func statusCodesHaveApplesValues() {
    #expect(KeychainStatus.itemNotFound.code == -25300)
    #expect(KeychainStatus.duplicateItem.code == -25299)
    #expect(KeychainStatus.param.code == -50)
    #expect(KeychainStatus.authFailed.code == -25293)
    #expect(KeychainStatus.interactionNotAllowed.code == -25308)
    #expect(KeychainStatus.notAvailable.code == -25291)
    #expect(KeychainStatus.decode.code == -26275)
    #expect(
      KeychainStatus.itemNotFound.message
        == "The specified item could not be found in the keychain.")
  }
}
