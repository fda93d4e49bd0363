// SPDX-License-Identifier: MIT
//
// Bursts of writes end with a checkpoint that copies the write-ahead log into keychain.db and
// empties it: the database file alone then holds the whole store (a backup of it is complete),
// the log does not keep the disk space of the burst, and the next start reads no log.
//
// A checkpoint comes once the store has been quiet for a moment, and at the latest a second
// after the first write it has not yet copied, so that under a steady stream of writes too the
// database file is never more than about a second behind what was acknowledged. Each one
// records in the ledger (and syncs) the commit count it copied.

import Dispatch
import GRDB
import Synchronization

final class CheckpointSchedule: Sendable {
  /// How long the store must have been quiet: long enough that a burst is over.
  static let quiet: DispatchTimeInterval = .milliseconds(200)
  /// How long a write may wait for its checkpoint while writes keep coming.
  static let latest: DispatchTimeInterval = .seconds(1)

  private weak let pool: DatabaseQueue?
  private let directory: String
  private let ledger: CommitLedger
  /// Where checkpoints run, one at a time: the timer's and `now`'s.
  private let queue = DispatchQueue(label: "keychain-store.checkpoint", qos: .utility)
  // Invariant: set once in init; libdispatch's sources are thread-safe, so `schedule` (from
  // any writer's thread) and `cancel` need no lock. The protocol is just not marked Sendable.
  nonisolated(unsafe) private let timer: any DispatchSourceTimer
  /// When the oldest write not yet copied into keychain.db was made; nil when there is none.
  private let oldestPending = Mutex<DispatchTime?>(nil)

  init(_ pool: DatabaseQueue, directory: String, ledger: CommitLedger) {
    self.pool = pool
    self.directory = directory
    self.ledger = ledger
    timer = DispatchSource.makeTimerSource(queue: queue)
    timer.setEventHandler { [weak self] in
      guard let self else { return }
      do {
        try self.run()
      } catch {
        // A reader holding an old snapshot makes TRUNCATE give up (SQLITE_BUSY): try again
        // after another quiet moment. A clean exit checkpoints anyway.
        self.afterWrite()
      }
    }
    timer.activate()
  }

  /// Called after every write: moves the checkpoint to a quiet moment from now, but never
  /// later than `latest` after the oldest write still waiting.
  func afterWrite() {
    let now = DispatchTime.now()
    let due = oldestPending.withLock { oldest in
      if oldest == nil { oldest = now }
      return Self.due(now: now, oldestPending: oldest!)
    }
    timer.schedule(deadline: due, leeway: .milliseconds(20))
  }

  /// When the checkpoint is due after a write at `now`, the oldest write not yet copied having
  /// been made at `oldestPending`.
  static func due(now: DispatchTime, oldestPending: DispatchTime) -> DispatchTime {
    min(now + quiet, oldestPending + latest)
  }

  /// Checkpoints at once, in place of any that is due (for `KeychainStore.checkpoint` and a
  /// clean close).
  func now() throws {
    try queue.sync {
      timer.schedule(deadline: .distantFuture)
      try run()
    }
  }

  /// Copies the log into keychain.db, empties it and records the count in the ledger.
  private func run() throws {
    oldestPending.withLock { $0 = nil }
    guard let pool else { return }
    // On the writer's queue: no transaction runs meanwhile, so the count read is the one the
    // checkpoint copies.
    let copied = try pool.writeWithoutTransaction { db in
      let count = try Schema.commitCount(db)
      _ = try db.checkpoint(.truncate)
      return count
    }
    ledger.checkpointed(copied)
    // A delete on a full disk may have used the reserve: take it back if there is room now.
    StoreFiles.ensureReserve(in: directory)
  }

  /// No checkpoint will start after this.
  func cancel() {
    timer.cancel()
  }
}
