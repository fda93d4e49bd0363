// SPDX-License-Identifier: MIT
//
// "Adding a password to the keychain" (the seeds), as written there. Only the wrapping type
// and function are ours: the seed's fragments live in an app's type and method.

import Foundation
import Keychain

struct Credentials {
  var username: String
  var password: String
}

enum KeychainError: Error {
  case noPassword
  case unexpectedPasswordData
  case unhandledError(status: OSStatus)
}

enum AddingAPassword {
  static let server = "www.example.com"

  static func add(_ credentials: Credentials) throws {
    let account = credentials.username
    let password = credentials.password.data(using: String.Encoding.utf8)!
    var query: [String: Any] = [
      kSecClass as String: kSecClassInternetPassword,
      kSecAttrAccount as String: account,
      kSecAttrServer as String: server,
      kSecValueData as String: password,
    ]
    // "You might include the kSecAttrLabel attribute in the original add query, providing a
    // string that marks the item for the particular purpose."
    query[kSecAttrLabel as String] = "\(account) at \(server)"

    let status = SecItemAdd(query as CFDictionary, nil)
    guard status == errSecSuccess else { throw KeychainError.unhandledError(status: status) }
  }
}
