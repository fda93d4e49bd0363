// SPDX-License-Identifier: MIT
//
// Items this process has seen exist, so that resolving an item's object path (every call on an
// item does it, GetSecret and libsecret's GetAll per search hit) needs no query of its own: it
// was a tenth of GetSecret's daemon time. Only a positive answer is kept; anything not here is
// asked of SQLite, so a missing entry costs a query and never hides an item.
//
// A deletion removes its entries and starts a new generation. A lookup remembers its answer only
// if no deletion happened while it ran: otherwise a query that saw the item just before it was
// deleted could put it back here after the deletion forgot it.

import Synchronization

final class KnownItems: Sendable {
  /// Entries kept at most; past it an arbitrary one makes room. Sized for stores of 100k
  /// items: below that, every item once seen stays known. When full, about 6 MB: 24-byte
  /// entries in a table of 262,144 slots, more for collection names over 15 bytes (the length
  /// Swift keeps inside a string without a heap allocation).
  static let capacity = 131_072

  private struct State {
    var items: Set<ItemID> = []
    var generation = 0
  }

  private let state = Mutex(State())

  /// Whether `item` is known to exist.
  func contains(_ item: ItemID) -> Bool { state.withLock { $0.items.contains(item) } }

  /// The current generation, to pass to `remember` after the query it precedes.
  var generation: Int { state.withLock { $0.generation } }

  /// Records that `item` exists, as seen by a query that started in `generation`; nothing is
  /// recorded when a deletion has happened since.
  func remember(_ item: ItemID, seenIn generation: Int) {
    state.withLock { state in
      guard state.generation == generation else { return }
      if state.items.count >= Self.capacity, let any = state.items.first {
        state.items.remove(any)
      }
      state.items.insert(item)
    }
  }

  /// Forgets `item`, once its deletion is committed.
  func forget(_ item: ItemID) {
    state.withLock { state in
      state.generation += 1
      state.items.remove(item)
    }
  }

  /// Forgets every item of `collection`, once its deletion is committed.
  func forgetCollection(_ collection: String) {
    state.withLock { state in
      state.generation += 1
      state.items = state.items.filter { $0.collection != collection }
    }
  }
}
