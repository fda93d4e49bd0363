// SPDX-License-Identifier: MIT
//
// What the importers share. Each finds another keyring's files (`sources`), reads and
// decrypts each one whole, merges it into its collection in one transaction, and reports per
// file in one `ImportOutcome`, the one report the daemon logs, announces and answers on the
// bus (as `ImportFileReport`), and that `keychainctl import` prints.

import KeychainCrypto
import KeychainStore

/// Whose files an import reads, and the command that imports them by hand.
public enum ImportSourceKind: String, Sendable, CaseIterable {
  case gnomeKeyring = "gnome-keyring"
  case oo7
  case kwallet
  case backup

  /// The `keychainctl import` command for files of this kind.
  public var command: String { "keychainctl import \(rawValue)" }
}

/// A file an importer would read, and the collection it would go into.
public struct FoundKeyring: Sendable, Equatable {
  /// The keyring's or wallet's name, as its file is named (`login`, `kdewallet`).
  public var name: String
  public var file: String
  public var collection: String

  public init(name: String, file: String, collection: String) {
    self.name = name
    self.file = file
    self.collection = collection
  }
}

/// An importer of one keyring directory into one store. Their files are only ever read.
public protocol KeyringImporter: Sendable {
  /// Whose files it reads.
  static var kind: ImportSourceKind { get }

  /// The files `run` would read, in that order, with their collections; nothing is opened.
  func sources() -> [FoundKeyring]

  /// Imports every file one of `passwords` opens (with what the importer knows of other
  /// passwords, such as those gnome-keyring keeps in login). With `dryRun`, reads and decrypts
  /// everything and writes nothing. `progress` hears of each file and of its items.
  func run(
    passwords: [SecureBytes], dryRun: Bool, progress: (@Sendable (ImportProgress) -> Void)?
  ) -> [ImportOutcome]
}

/// What happened to one keyring file.
public struct ImportOutcome: Sendable, Equatable {
  public enum Status: String, Sendable {
    /// Its items are in keychaind now (or, in a dry run, would be).
    case imported
    /// Read before and not changed since: nothing to do.
    case unchanged
    /// No password known yet opens it, or its collection in keychaind is locked.
    case pending
    /// Damaged or unreadable: reported, never treated as empty.
    case failed
    /// Deliberately left alone: a gnome-keyring file oo7 has migrated (its v1 copy is
    /// imported instead) or whose collection the user deleted under oo7 since.
    case skipped
  }

  /// Whose file it is: gnome-keyring's, oo7's, KWallet's, or a backup.
  public var kind: ImportSourceKind
  public var file: String
  public var collection: String
  public var status: Status
  /// Why it is pending or failed.
  public var reason: String?
  public var items = 0
  public var added = 0
  public var updated = 0
  public var unchanged = 0
  /// Added items whose number was taken in keychaind, so their path changed.
  public var renumbered = 0
  /// Secrets put back together from a textual file gnome-keyring wrote wrongly.
  public var recovered = 0
  /// libgnome-keyring access entries, dropped.
  public var accessEntries = 0
  /// Flatpak portal keys (an `app_id` attribute and a 64-byte secret).
  public var portalKeys = 0
  /// The items added or changed, for change signals.
  public var changedItems: [ItemID] = []
  /// The items added (the others of `changedItems` were updated).
  public var addedItems: [ItemID] = []
  /// Items a newer copy was not let replace (they belong to a program), kept as they were.
  public var keptItems: [ItemID] = []
  /// Whether the collection was created by this import.
  public var createdCollection = false

  /// Takes a merge's counts: the file is imported.
  mutating func record(_ report: MergeReport) {
    status = .imported
    added = report.added.count
    updated = report.updated.count
    unchanged = report.unchanged
    renumbered = report.renumbered
    changedItems = report.added + report.updated
    addedItems = report.added
    keptItems = report.kept
  }
}

/// Where an import is: the file being read (`fileIndex` of `files`, from 0) and its items done.
public struct ImportProgress: Sendable {
  public var file: String
  public var fileIndex: Int
  public var files: Int
  public var itemsDone: Int
  public var items: Int
}
