// SPDX-License-Identifier: MIT
//
// Each item's folder, key and kind (its `server`, `user` and `type`), remembered for KWallet's
// listings: `folderList` and `entryList` read them for every item of a wallet, and reading
// them from the store means decrypting each item (10 µs; 10 ms for 1,000 entries, where
// kwalletd5 answers from memory in half a millisecond). Which items a listing covers always
// comes from the store's index, so a deleted item is never listed; a changed item is forgotten
// when its change is announced, and a name read before a change that was forgotten meanwhile
// is not kept (the generation). Names stay in this process's memory, as the store's metadata
// cache keeps labels; a collection's go when it locks.

import KWalletProtocol
import KeychainDaemonCore
import KeychainStore
import Synchronization

final class KWalletNameCache: Sendable {
  /// An item's names, as its attributes give them.
  struct Names: Sendable {
    let folder: String?
    let key: String?
    let type: String?
  }

  private struct State {
    /// By collection, then item number: one collection name hashed per listing, not per item.
    var names: [String: [Int64: Names]] = [:]
    var count = 0
    /// Moves on with every forgetting.
    var generation = 0
  }

  private let state = Mutex(State())
  /// Past this many items, names are read from the store each time.
  static let capacity = 100_000

  /// The names of `item`, remembered or read through `view`; nil for an item the caller cannot
  /// read.
  func names(of item: ItemID, _ view: StoreView) throws -> Names? {
    let (known, generation) = state.withLock {
      ($0.names[item.collection]?[item.id], $0.generation)
    }
    if let known { return known }
    guard let attributes = try view.info(item)?.attributes else { return nil }
    let names = Names(
      folder: attributes[KWalletEntry.folderAttribute], key: attributes[KWalletEntry.keyAttribute],
      type: attributes[KWalletEntry.typeAttribute])
    state.withLock { state in
      if state.generation == generation, state.count < Self.capacity,
        state.names[item.collection, default: [:]].updateValue(names, forKey: item.id) == nil
      {
        state.count += 1
      }
    }
    return names
  }

  /// Forgets an item's names (it changed or went).
  func forget(_ item: ItemID) {
    state.withLock { state in
      if state.names[item.collection]?.removeValue(forKey: item.id) != nil { state.count -= 1 }
      state.generation += 1
    }
  }

  /// Forgets the names of every item of `collection`.
  func forget(collection: String) {
    state.withLock { state in
      state.count -= state.names.removeValue(forKey: collection)?.count ?? 0
      state.generation += 1
    }
  }
}
