// SPDX-License-Identifier: MIT
//
// What a locked collection still shows. gnome-keyring keeps a keyring's items in memory once it
// has been unlocked, so after a lock Seahorse and `secret-tool search --all` still list their
// labels, attributes and dates (only the secrets need the unlock again). keychaind keeps the
// same, for the items read or written while their collection was unlocked, in this process's
// memory only: nothing more is written unsealed, and a restart forgets it. Bounded, so that a
// huge collection cannot grow the daemon without limit; an item beyond the bound shows blank
// while locked, as it does after a restart.

import Synchronization

final class ItemMetadataCache: Sendable {
  /// About 4 MB of labels and attributes at most.
  static let capacity = 10_000

  private let entries = Mutex<[ItemID: ItemInfo]>([:])

  func remember(_ info: ItemInfo) {
    entries.withLock { entries in
      if entries.count >= Self.capacity, entries[info.id] == nil, let any = entries.keys.first {
        entries[any] = nil
      }
      entries[info.id] = info
    }
  }

  func info(_ item: ItemID) -> ItemInfo? { entries.withLock { $0[item] } }

  func forget(_ item: ItemID) { entries.withLock { $0[item] = nil } }

  func forgetCollection(_ name: String) {
    entries.withLock { entries in entries = entries.filter { $0.key.collection != name } }
  }
}

extension KeychainStore {
  /// An item's label, attributes, content type and dates, if the item was read or written
  /// while its collection was unlocked in this process: readable while the collection is
  /// locked again, as gnome-keyring shows a keyring's items once it has been unlocked.
  public func knownInfo(_ item: ItemID) -> ItemInfo? {
    if !isLocked(item.collection), let info = try? itemInfo(item) { return info }
    return metadata.info(item)
  }
}
