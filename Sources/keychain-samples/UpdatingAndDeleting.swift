// SPDX-License-Identifier: MIT
//
// "Updating and deleting keychain items", the flow the seeds describe ("Handle Changes
// Gracefully"): a changed password is stored with SecItemUpdate, a user who disconnects is
// forgotten with SecItemDelete.

import Foundation
import Keychain

enum UpdatingAndDeleting {
  static let server = AddingAPassword.server

  static func update(_ credentials: Credentials) throws {
    let query: [String: Any] = [
      kSecClass as String: kSecClassInternetPassword,
      kSecAttrServer as String: server,
    ]
    let account = credentials.username
    let password = credentials.password.data(using: String.Encoding.utf8)!
    let attributes: [String: Any] = [
      kSecAttrAccount as String: account,
      kSecValueData as String: password,
    ]
    let status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
    guard status != errSecItemNotFound else { throw KeychainError.noPassword }
    guard status == errSecSuccess else { throw KeychainError.unhandledError(status: status) }
  }

  static func delete() throws {
    let query: [String: Any] = [
      kSecClass as String: kSecClassInternetPassword,
      kSecAttrServer as String: server,
    ]
    let status = SecItemDelete(query as CFDictionary)
    guard status == errSecSuccess || status == errSecItemNotFound else {
      throw KeychainError.unhandledError(status: status)
    }
  }
}
