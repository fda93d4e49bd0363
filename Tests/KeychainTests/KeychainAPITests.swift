// SPDX-License-Identifier: MIT
//
// The library in-process, on an embedded store in a temp dir: the Apple spellings' results and
// error codes, SecKey, and the typed API. (The samples run as programs on every backend in
// KeychaindTests.KeychainSamplesTests.) The backend is per process, so the suite is serialized.

import Foundation
import Keychain
import KeychainTesting
import Testing

@Suite(.serialized) struct KeychainAPITests {
  static let home = try! TemporaryDirectory(prefix: "keychain-api")
  /// The suite's embedded store; chosen once, the first time the suite runs.
  static let embedded: Void = useEmbeddedStore()

  /// Puts the process on the suite's embedded store (again, after a test on the bus).
  static func useEmbeddedStore() {
    KeychainBackend.use(.embedded(directory: home.path + "/store", password: "test password"))
  }

  init() { _ = Self.embedded }

  @Test func nonsenseIsErrSecParamWithAppleMessages() {
    #expect(SecItemAdd([kSecAttrAccount as String: "x"] as CFDictionary, nil) == errSecParam)
    let wrongType: [String: Any] = [kSecClass as String: kSecClassGenericPassword, "bogus": 1]
    #expect(SecItemCopyMatching(wrongType as CFDictionary, nil) == errSecParam)
    #expect(
      SecCopyErrorMessageString(errSecItemNotFound, nil)
        == "The specified item could not be found in the keychain.")
    #expect(SecCopyErrorMessageString(errSecDuplicateItem, nil)?.contains("already exists") == true)
  }

  @Test func genericPasswordsFollowTheKeychainRules() throws {
    let base: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api-test",
    ]
    _ = SecItemDelete(base as CFDictionary)
    for account in ["a", "b", "c"] {
      var add = base
      add[kSecAttrAccount as String] = account
      add[kSecValueData as String] = Data("pw-\(account)".utf8)
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem)
    }
    var search = base
    search[kSecMatchLimit as String] = 2
    search[kSecReturnAttributes as String] = true
    var result: CFTypeRef?
    #expect(SecItemCopyMatching(search as CFDictionary, &result) == errSecSuccess)
    #expect((result as? [[String: Any]])?.count == 2)

    // A persistent reference finds its item again.
    var one = base
    one[kSecAttrAccount as String] = "b"
    one[kSecReturnPersistentRef as String] = true
    #expect(SecItemCopyMatching(one as CFDictionary, &result) == errSecSuccess)
    let reference = try #require(result as? Data)
    let byReference: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference,
      kSecReturnData as String: true,
    ]
    #expect(SecItemCopyMatching(byReference as CFDictionary, &result) == errSecSuccess)
    #expect(result as? Data == Data("pw-b".utf8))

    // Renaming a onto b's primary key is refused and changes nothing.
    var a = base
    a[kSecAttrAccount as String] = "a"
    let toB = [kSecAttrAccount as String: "b"] as CFDictionary
    #expect(SecItemUpdate(a as CFDictionary, toB) == errSecDuplicateItem)
    #expect(SecItemCopyMatching(a as CFDictionary, nil) == errSecSuccess)

    #expect(SecItemDelete(base as CFDictionary) == errSecSuccess)
    #expect(SecItemCopyMatching(base as CFDictionary, nil) == errSecItemNotFound)
    #expect(SecItemDelete(base as CFDictionary) == errSecItemNotFound)
  }

  @Test func ellipticCurveKeysRoundTrip() throws {
    let parameters: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
      kSecAttrKeySizeInBits as String: 256,
    ]
    var error: Unmanaged<CFError>?
    let key = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
    let external = try #require(SecKeyCopyExternalRepresentation(key, nil)) as Data
    #expect(external.count == 97 && external.first == 4)
    let publicKey = try #require(SecKeyCopyPublicKey(key))
    let publicData = try #require(SecKeyCopyExternalRepresentation(publicKey, nil)) as Data
    #expect(publicData == external.prefix(65))
    let attributes = try #require(SecKeyCopyAttributes(publicKey) as? [String: Any])
    #expect(attributes[kSecAttrKeyType as String] as? String == "73")
    #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 256)
    #expect((attributes[kSecAttrApplicationLabel as String] as? Data)?.count == 20)

    // The private key made again from its bytes, and refused when the scalar does not match.
    let options: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
      kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
    ]
    #expect(SecKeyCreateWithData(external as CFData, options as CFDictionary, nil) != nil)
    var tampered = external
    tampered[96] ^= 1
    #expect(SecKeyCreateWithData(tampered as CFData, options as CFDictionary, &error) == nil)
    #expect((error?.takeRetainedValue())?.code == Int(errSecParam))
    // A point off the curve is not a public key.
    var offCurve = publicData
    offCurve[64] ^= 1
    let publicOptions: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
      kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
    ]
    #expect(SecKeyCreateWithData(offCurve as CFData, publicOptions as CFDictionary, nil) == nil)
    #expect(SecKeyCreateWithData(publicData as CFData, publicOptions as CFDictionary, nil) != nil)
  }

  @Test func aPermanentKeyIsFoundByItsTag() throws {
    let tag = Data("com.example.keys.permanent".utf8)
    let parameters: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeEC,
      kSecPrivateKeyAttrs as String: [
        kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
      ],
    ]
    let key = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
    let query: [String: Any] = [
      kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
      kSecReturnRef as String: true,
    ]
    var item: CFTypeRef?
    #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess)
    let found = item as! SecKey
    #expect(
      SecKeyCopyExternalRepresentation(found, nil) as Data?
        == SecKeyCopyExternalRepresentation(key, nil) as Data?)
    // Return keys have no place in a delete.
    #expect(SecItemDelete(query as CFDictionary) == errSecParam)
    var delete = query
    delete[kSecReturnRef as String] = nil
    #expect(SecItemDelete(delete as CFDictionary) == errSecSuccess)
  }

  @Test func theTypedAPIStoresReplacesAndDeletesPasswords() throws {
    #expect(try KeychainItems.password(service: "typed", account: "alice") == nil)
    try KeychainItems.setPassword("one", service: "typed", account: "alice")
    try KeychainItems.setPassword("two", service: "typed", account: "alice")
    #expect(try KeychainItems.password(service: "typed", account: "alice") == "two")
    #expect(try KeychainItems.deletePassword(service: "typed", account: "alice"))
    #expect(try KeychainItems.deletePassword(service: "typed", account: "alice") == false)
    #expect(throws: KeychainStatus.duplicateItem) {
      try KeychainItems.add(
        NewItem(itemClass: .genericPassword, attributes: [.service: .string("d")]))
      try KeychainItems.add(
        NewItem(itemClass: .genericPassword, attributes: [.service: .string("d")]))
    }
  }
}
