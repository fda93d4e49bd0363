// SPDX-License-Identifier: MIT
//
// The answers of recent searches that found many items (which items hold these attribute
// pairs, in one collection or all), kept until the next write: every change to the store goes through `write` or `commit`,
// which empty it, so an answer is never older than the last change. A search that ran while a
// change committed is not kept (the generation moved). Which of the answer's items a caller
// may read is decided after, as before. A KWallet folder of 1,000 entries is listed through the
// same search every time (a third of `entryList` was this query), and libsecret programs look
// the same item up again and again.

import Foundation
import Synchronization

final class SearchCache: Sendable {
  /// A search: its scope and its pairs' digests, in byte order (the order they were asked in
  /// does not matter).
  struct Key: Hashable {
    let collection: String?
    let digests: [Data]

    init(collection: String?, digests: [Data]) {
      self.collection = collection
      self.digests = digests.sorted(by: StoreKeys.bytesPrecede)
    }
  }

  private struct State {
    var answers: [Key: [ItemID]] = [:]
    var generation = 0
  }

  private let state = Mutex(State())
  /// Searches kept at most; past that, all are dropped (writes empty it far more often).
  static let capacity = 256
  /// Answers smaller than this are not kept: SQL finds a few items in a few B-tree lookups,
  /// and keeping them cost a lookup of one item 2–3 % at the median and 10 % at p90
  /// (keychain-load, 1,000 items).
  static let smallestKept = 64

  /// The kept answer of the search for `digests` in `collection` (all collections if nil), or
  /// the generation to pass to `keep` after searching. Most of the time nothing is kept (only
  /// large answers are), and then no key is built: sorting and hashing the digests cost a
  /// small search more than the cache saves it.
  func answer(collection: String?, digests: [Data]) -> (found: [ItemID]?, generation: Int) {
    state.withLock { state in
      guard !state.answers.isEmpty else { return (nil, state.generation) }
      return (state.answers[Key(collection: collection, digests: digests)], state.generation)
    }
  }

  /// Keeps `found` as the answer of that search if nothing was written since `generation`.
  func keep(
    _ found: [ItemID], collection: String?, digests: [Data], seenIn generation: Int
  ) {
    guard found.count >= Self.smallestKept else { return }
    let key = Key(collection: collection, digests: digests)
    state.withLock { state in
      guard state.generation == generation else { return }
      if state.answers.count >= Self.capacity { state.answers.removeAll(keepingCapacity: true) }
      state.answers[key] = found
    }
  }

  /// Forgets every answer: the store changed.
  func invalidate() {
    state.withLock { state in
      state.answers.removeAll()
      state.generation += 1
    }
  }
}
