// SPDX-License-Identifier: MIT
//
// "Storing keys in the keychain" (the seeds). The seed leaves the key as `<# a key #>`; here it
// is a new RSA key, made as "Creating an Asymmetric Key Pair" makes one.

import Foundation
import Keychain

enum StoringKeys {
  static func newKey() throws -> SecKey {
    let attributes: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
      kSecAttrKeySizeInBits as String: 2048,
    ]
    // The error comes back retained (Apple's convention): `takeRetainedValue` balances it.
    var error: Unmanaged<CFError>?
    guard let privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
      throw error!.takeRetainedValue() as Error
    }
    return privateKey
  }

  /// Stores `key` under the seed's tag and reads it back; returns the key found.
  static func storeAndRetrieve(_ key: SecKey) throws -> SecKey {
    let tag = "com.example.keys.mykey".data(using: .utf8)!
    let addquery: [String: Any] = [
      kSecClass as String: kSecClassKey,
      kSecAttrApplicationTag as String: tag,
      kSecValueRef as String: key,
    ]

    let status = SecItemAdd(addquery as CFDictionary, nil)
    guard status == errSecSuccess else { throw KeychainError.unhandledError(status: status) }

    let getquery: [String: Any] = [
      kSecClass as String: kSecClassKey,
      kSecAttrApplicationTag as String: tag,
      kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
      kSecReturnRef as String: true,
    ]

    var item: CFTypeRef?
    let found = SecItemCopyMatching(getquery as CFDictionary, &item)
    guard found == errSecSuccess else { throw KeychainError.unhandledError(status: found) }
    let key = item as! SecKey
    return key
  }

  /// "Avoid reusing tags": delete the old key before adding a new one with the same tag.
  static func deleteKey() throws {
    let tag = "com.example.keys.mykey".data(using: .utf8)!
    let query: [String: Any] = [
      kSecClass as String: kSecClassKey,
      kSecAttrApplicationTag as String: tag,
    ]
    let status = SecItemDelete(query as CFDictionary)
    guard status == errSecSuccess || status == errSecItemNotFound else {
      throw KeychainError.unhandledError(status: status)
    }
  }
}
