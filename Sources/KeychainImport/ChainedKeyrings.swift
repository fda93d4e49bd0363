// SPDX-License-Identifier: MIT
//
// gnome-keyring's "unlock this keyring whenever I am logged in": the keyring's password kept as
// an item of `login` (schema org.gnome.keyring.ChainedKeyring, attribute
// keyring = "LOCAL:/keyrings/<name>.keyring"). gnome-keyring opens those keyrings when login
// opens; keychaind does the same with the items it imported (or that a client stored that way).
// Keyrings gnome-keyring kept with no password at all were never locked there: they open with
// login too.

import KeychainCrypto
import KeychainStore

public enum ChainedKeyrings {
  /// Unlocks each locked collection whose password login keeps, and those imported from
  /// keyrings with no password; returns their names. Nothing happens while login is locked; a
  /// password that no longer fits is skipped.
  public static func unlock(in store: KeychainStore) -> [String] {
    let login = KeychainStore.loginCollection
    guard !store.isLocked(login),
      let found = try? store.searchItems(
        ["xdg:schema": "org.gnome.keyring.ChainedKeyring"], in: login)
    else { return [] }
    var opened: [String] = []
    let unprotected = ((try? store.importSources()) ?? [])
      .filter { $0.result.hasSuffix(GnomeKeyringImporter.unprotectedMark) }.map(\.collection)
    for name in Set(unprotected) where name != login && store.isLocked(name) {
      if (try? store.unlock(name, password: SecureBytes(count: 0) { _ in })) != nil {
        opened.append(name)
      }
    }
    for item in found.unlocked {
      guard let info = try? store.itemInfo(item), let file = info.attributes["keyring"],
        file.hasPrefix("LOCAL:/keyrings/"), file.hasSuffix(".keyring")
      else { continue }
      let stem = String(file.dropFirst("LOCAL:/keyrings/".count).dropLast(".keyring".count))
      let name = GnomeKeyringImporter.collectionName(forFile: stem)
      guard name != login, (try? store.hasCollection(name)) == true, store.isLocked(name),
        let (secret, _) = try? store.secret(of: item),
        (try? store.unlock(name, password: secret)) != nil
      else { continue }
      opened.append(name)
    }
    return opened
  }
}
