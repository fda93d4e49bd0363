// SPDX-License-Identifier: MIT
//
// The embedded backend: the encrypted store in a directory of the program's own, for programs
// that run where no session bus or no provider is. Items go into its `login` collection, which
// is created with the configured password on first use and unlocked with it afterwards.

import KeychainCore
import KeychainCrypto
import KeychainStore

struct EmbeddedBackend: ItemBackend {
  let items: StoreItems

  init(directory: String, password: String) throws(KeychainStatus) {
    do {
      let store = try KeychainStore(directory: directory)
      let secret = SecureBytes(copying: Array(password.utf8))
      let login = KeychainStore.loginCollection
      if try !store.hasCollection(login) {
        try store.createCollection(name: login, label: "Login", password: secret)
      } else if store.isLocked(login) {
        try store.unlock(login, password: secret)
      }
      items = store.items(in: login)
    } catch let error as StoreError {
      throw error.status
    } catch {
      throw KeychainStatus(KeychainStatus.notAvailable.code, detail: "\(error)")
    }
  }

  func add(_ item: NewItem) throws(KeychainStatus) -> FoundItem {
    try mapped { try items.add(item) }
  }

  func copyMatching(_ query: ItemQuery) throws(KeychainStatus) -> [FoundItem] {
    try mapped { try items.copyMatching(query) }
  }

  func update(_ query: ItemQuery, _ changes: ItemChanges) throws(KeychainStatus) {
    try mapped { try items.update(query, changes) }
  }

  func delete(_ query: ItemQuery) throws(KeychainStatus) {
    try mapped { try items.delete(query) }
  }

  private func mapped<T>(_ body: () throws -> T) throws(KeychainStatus) -> T {
    try KeychainStore.keychainStatus(body)
  }
}
