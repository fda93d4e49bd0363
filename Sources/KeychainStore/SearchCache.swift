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
  struct Key: Hashable {
    let collection: String?
    let digests: [Data]
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

  /// A kept answer, or the generation to pass to `keep` after searching.
  func answer(_ key: Key) -> (found: [ItemID]?, generation: Int) {
    state.withLock { ($0.answers[key], $0.generation) }
  }

  /// Keeps `found` for `key` if nothing was written since `generation`.
  func keep(_ found: [ItemID], for key: Key, seenIn generation: Int) {
    guard found.count >= Self.smallestKept else { return }
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
