// SPDX-License-Identifier: MIT
//
// The store most in-memory tests start from.

import KeychainCrypto
import KeychainStore
import KeychainTesting

/// A store in a temporary directory (gone with this value) with an unlocked `login` collection
/// whose password is "pw".
struct LoginStore: Sendable {
  static let password = "pw"
  let directory: TemporaryDirectory
  let store: KeychainStore

  init(_ prefix: String) throws {
    directory = try TemporaryDirectory(prefix: prefix)
    store = try KeychainStore(directory: directory.path + "/store", kdf: .testing)
    try store.createCollection(
      name: "login", label: "Login", password: SecureBytes(copying: Array(Self.password.utf8)))
  }
}
