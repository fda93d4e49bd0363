// SPDX-License-Identifier: MIT
//
// The last step every keyring-file import shares: the target collection made with the file's
// password if keychaind has none of that name, or unlocked with it if locked, then the items
// merged in one transaction with the record of the file (see `KeychainStore.merge`), changing
// only the items the import's rule lets it.

import KeychainCrypto
import KeychainStore

enum ImportMerge {
  /// Merges `items` into `collection` (labelled `label` if it is made) and records the file in
  /// `outcome`. A dry run only counts. A collection locked with another password makes the file
  /// wait (`CollectionLockedElsewhere`).
  static func apply(
    _ items: [ImportedItem], into collection: String, label: String, password: SecureBytes,
    record: ImportSource, store: KeychainStore, updating: @escaping ImportUpdateRule,
    dryRun: Bool, _ outcome: inout ImportOutcome, progress: (Int) -> Void
  ) throws {
    outcome.items = items.count
    outcome.portalKeys =
      items.filter { $0.attributes["app_id"] != nil && $0.secret.count == 64 }
      .count
    if dryRun {
      outcome.status = .imported
      outcome.added = items.count
      return
    }
    if try !store.hasCollection(collection) {
      _ = try store.createCollection(
        name: collection, label: label.isEmpty ? collection : label, password: password)
      outcome.createdCollection = true
    }
    if store.isLocked(collection) {
      // Unlocked by the same password if it is the same keyring; else it waits.
      do { try store.unlock(collection, password: password) } catch StoreError.wrongPassword {
        throw CollectionLockedElsewhere()
      }
    }
    let report = try store.merge(
      items, into: collection, source: record, updating: updating, progress: progress)
    outcome.record(report)
  }
}

/// keychaind's collection of that name is locked, and the keyring's password does not open it.
struct CollectionLockedElsewhere: Error {}
