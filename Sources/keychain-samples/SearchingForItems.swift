// SPDX-License-Identifier: MIT
//
// "Searching for keychain items" (the seeds): find the Internet password added above and
// recover the user name and the password from one result.

import Foundation
import Keychain

enum SearchingForItems {
  static let server = AddingAPassword.server

  static func find() throws -> Credentials {
    let query: [String: Any] = [
      kSecClass as String: kSecClassInternetPassword,
      kSecAttrServer as String: server,
      kSecMatchLimit as String: kSecMatchLimitOne,
      kSecReturnAttributes as String: true,
      kSecReturnData as String: true,
    ]

    var item: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &item)
    guard status != errSecItemNotFound else { throw KeychainError.noPassword }
    guard status == errSecSuccess else { throw KeychainError.unhandledError(status: status) }

    guard let existingItem = item as? [String: Any],
      let passwordData = existingItem[kSecValueData as String] as? Data,
      let password = String(data: passwordData, encoding: String.Encoding.utf8),
      let account = existingItem[kSecAttrAccount as String] as? String
    else {
      throw KeychainError.unexpectedPasswordData
    }
    let credentials = Credentials(username: account, password: password)
    return credentials
  }

  /// With `kSecMatchLimitAll` the result is an array of such dictionaries.
  static func accounts() throws -> [String] {
    let query: [String: Any] = [
      kSecClass as String: kSecClassInternetPassword,
      kSecAttrServer as String: server,
      kSecMatchLimit as String: kSecMatchLimitAll,
      kSecReturnAttributes as String: true,
    ]
    var items: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &items)
    guard status == errSecSuccess else { throw KeychainError.unhandledError(status: status) }
    guard let all = items as? [[String: Any]] else { throw KeychainError.unexpectedPasswordData }
    return all.compactMap { $0[kSecAttrAccount as String] as? String }.sorted()
  }
}
