// SPDX-License-Identifier: MIT
//
// Restoring a backup into the store with the import's merge rules: each collection merged into
// the one of the same name (created, with the backup's passphrase as its password, when there
// is none; left pending when it is locked), items matched by number and attributes, the newer
// one kept, nothing deleted, nothing duplicated. The file is read whole and authenticated
// before anything is written.

import Foundation
import KeychainCrypto
import KeychainStore

public enum BackupRestore {
  /// Restores the backup at `file` (an absolute path); one outcome per collection, or one
  /// failed outcome for a file that cannot be read or opened.
  public static func run(
    store: KeychainStore, file: String, passphrase: SecureBytes, dryRun: Bool = false,
    updating: @escaping ImportUpdateRule = KeychainStore.unownedOnly
  ) -> [ImportOutcome] {
    let source: KeyringSource
    let collections: [BackupCollection]
    do {
      source = try KeyringDirectory.readFile(file, name: "backup")
      collections = try Backup.open(source.bytes, passphrase: passphrase, file: file)
    } catch {
      var failed = ImportOutcome(kind: .backup, file: file, collection: "", status: .failed)
      failed.reason =
        if case KeyringFileError.wrongPassword = error {
          "\(file): the passphrase does not open it, or the file was changed"
        } else {
          "\(error)"
        }
      return [failed]
    }
    return collections.map { restore($0, store, source, passphrase, dryRun, updating) }
  }

  private static func restore(
    _ collection: BackupCollection, _ store: KeychainStore, _ source: KeyringSource,
    _ passphrase: SecureBytes, _ dryRun: Bool, _ updating: @escaping ImportUpdateRule
  ) -> ImportOutcome {
    var outcome = ImportOutcome(
      kind: .backup, file: source.path, collection: collection.name, status: .failed)
    outcome.items = collection.items.count
    do {
      let exists = try store.hasCollection(collection.name)
      if exists, store.isLocked(collection.name) {
        outcome.status = .pending
        outcome.reason = "keychaind's collection \(collection.name) is locked: unlock it first"
        return outcome
      }
      if dryRun {
        outcome.status = .imported
        outcome.added = collection.items.count
        return outcome
      }
      if !exists {
        _ = try store.createCollection(
          name: collection.name, label: collection.label, password: passphrase)
        outcome.createdCollection = true
      }
      var record = GnomeKeyringImporter.record(source, collection: collection.name)
      record.path = source.path + "#" + collection.name
      record.result = "\(collection.items.count) item(s) from a backup"
      let report = try store.merge(
        collection.items.map {
          ImportedItem(
            label: $0.label, attributes: $0.attributes, secret: $0.secret,
            contentType: $0.contentType, preferredID: Int64($0.number), created: $0.created,
            modified: $0.modified)
        }, into: collection.name, source: record, updating: updating)
      outcome.record(report)
    } catch {
      outcome.reason = "\(error)"
    }
    return outcome
  }
}
