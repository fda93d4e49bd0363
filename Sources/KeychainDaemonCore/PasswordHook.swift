// SPDX-License-Identifier: MIT
//
// The daemon's hook for a password that has just unlocked or created a collection, through a
// prompt or gnome-keyring's master-password calls: keychaind imports gnome-keyring's keyrings
// with it. The server knows nothing of importing; it only announces what changed
// (`StoreEvent.hooked`).

import KeychainCrypto
import KeychainStore

/// The items an import wrote, and those it was not let replace, for the audit log.
public struct ImportedItems: Sendable {
  public var added: [ItemID] = []
  public var updated: [ItemID] = []
  /// Items a newer copy would have replaced, kept because they belong to a program.
  public var kept: [ItemID] = []

  public init() {}

  public var isEmpty: Bool { added.isEmpty && updated.isEmpty && kept.isEmpty }

  public mutating func merge(_ other: ImportedItems) {
    added += other.added
    updated += other.updated
    kept += other.kept
  }
}

/// What the hook changed in the store, so that clients hear of it.
public struct PasswordHookEffects: Sendable {
  /// Collections it made.
  public var createdCollections: [String]
  /// Collections whose items it added to or changed.
  public var changedCollections: [String]
  /// Collections it unlocked (with passwords kept in login, as gnome-keyring does).
  public var unlockedCollections: [String]
  /// What its imports wrote, item by item.
  public var imported = ImportedItems()

  public init(
    createdCollections: [String] = [], changedCollections: [String] = [],
    unlockedCollections: [String] = []
  ) {
    self.createdCollections = createdCollections
    self.changedCollections = changedCollections
    self.unlockedCollections = unlockedCollections
  }
}

/// Called, off the connection's thread, with a password that opened or made a collection.
public typealias PasswordHook = @Sendable (SecureBytes) -> PasswordHookEffects

extension PasswordHookEffects {
  mutating func merge(_ other: PasswordHookEffects) {
    createdCollections += other.createdCollections
    changedCollections += other.changedCollections
    unlockedCollections += other.unlockedCollections
    imported.merge(other.imported)
  }
}
