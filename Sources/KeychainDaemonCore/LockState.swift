// SPDX-License-Identifier: MIT
//
// What the lock timers go by: when each collection was last used, on the daemon's clock, and
// each collection's lock settings over keychaind.conf's defaults.

import KeychainStore
import Synchronization

package final class LockState: Sendable {
  /// The time `lastUse` and the lock timers go by.
  package let clock: any DaemonClock
  /// keychaind.conf's lock settings, under each collection's own (`LockPolicy`).
  package let defaults: LockPolicy
  /// When a client last read or wrote a secret of each collection, or it was unlocked (for
  /// "lock after N minutes unused"); a collection not yet seen counts from when it is first
  /// asked about.
  package let lastUse = Mutex<[String: Duration]>([:])
  private let store: KeychainStore
  /// Each collection's own lock settings as last read from the store, and a generation that
  /// `policiesChanged` moves on, so that a read racing a change is not kept.
  private let cachedPolicies = Mutex<(policies: [String: LockPolicy]?, generation: Int)>(
    (nil, 0))

  init(store: KeychainStore, clock: any DaemonClock, defaults: LockPolicy) {
    self.store = store
    self.clock = clock
    self.defaults = defaults
  }

  /// Each collection's own lock settings. Read from the store once and kept: keychaind is the
  /// store's only writer and says when they change, and the lock timers ask four times a minute.
  package func policies() throws -> [String: LockPolicy] {
    let (cached, generation) = cachedPolicies.withLock { ($0.policies, $0.generation) }
    if let cached { return cached }
    let read = try store.lockPolicies()
    cachedPolicies.withLock { if $0.generation == generation { $0.policies = read } }
    return read
  }

  /// After a lock policy was set or a collection deleted: the next read goes to the store.
  package func policiesChanged() {
    cachedPolicies.withLock { $0 = (nil, $0.generation + 1) }
  }

  /// Notes that a client read or wrote a secret of `collections` now.
  package func noteUse(_ collections: some Sequence<String>) {
    lastUse.withLock { uses in
      let now = clock.now
      for collection in collections { uses[collection] = now }
    }
  }

  /// How long ago a client last read or wrote a secret of `collection`, or it was unlocked;
  /// zero the first time it is asked about a collection.
  package func sinceLastUse(of collection: String) -> Duration {
    let now = clock.now
    return now
      - lastUse.withLock { uses in
        if let last = uses[collection] { return last }
        uses[collection] = now
        return now
      }
  }

  /// Forgets the last use of collections that locked: they count afresh once unlocked.
  package func forgetUse(of collections: [String]) {
    lastUse.withLock { uses in
      for name in collections { uses[name] = nil }
    }
  }
}
