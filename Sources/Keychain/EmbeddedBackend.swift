// SPDX-License-Identifier: MIT
//
// The embedded backend: the encrypted store in a directory of the program's own, for programs
// that run where no session bus or no provider is. Items go into its `login` collection, which
// is created with the configured password on first use and unlocked with it afterwards.

import KeychainCore
import KeychainCrypto
import KeychainStore

/// The `login` collection of the store in `directory`, created with `password` on first use and
/// unlocked with it afterwards.
func embeddedStore(directory: String, password: String) throws(KeychainStatus) -> StoreItems {
  do {
    let store = try KeychainStore(directory: directory)
    let secret = SecureBytes(copying: Array(password.utf8))
    let login = KeychainStore.loginCollection
    if try !store.hasCollection(login) {
      try store.createCollection(name: login, label: "Login", password: secret)
    } else if store.isLocked(login) {
      try store.unlock(login, password: secret)
    }
    return store.items(in: login)
  } catch {
    let status = KeychainStore.status(for: error)
    // A store that cannot open is no keychain at all, whatever the reason.
    throw status == .decode
      ? KeychainStatus(KeychainStatus.notAvailable.code, detail: "\(error)") : status
  }
}
