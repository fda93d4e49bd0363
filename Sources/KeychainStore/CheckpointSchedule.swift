// SPDX-License-Identifier: MIT
//
// Bursts of writes end with a checkpoint that copies the write-ahead log into keychain.db and
// empties it: the database file alone then holds the whole store (a backup of it is complete),
// the log does not keep the disk space of the burst, and the next start reads no log.

import Dispatch
import GRDB
import Synchronization

final class CheckpointSchedule: Sendable {
  /// How long the store must have been quiet: long enough that a burst is over, short enough
  /// that a backup taken a moment after a change has it.
  static let quiet: DispatchTimeInterval = .seconds(2)

  private weak let pool: DatabaseQueue?
  private let directory: String
  private let generation = Mutex(0)
  private let queue = DispatchQueue(label: "keychain-store.checkpoint", qos: .utility)

  init(_ pool: DatabaseQueue, directory: String) {
    self.pool = pool
    self.directory = directory
  }

  /// Called after every write: (re)starts the quiet period.
  func afterWrite() {
    let mine = generation.withLock { generation in
      generation += 1
      return generation
    }
    queue.asyncAfter(deadline: .now() + Self.quiet) { [weak self] in
      guard let self, self.generation.withLock({ $0 == mine }), let pool = self.pool else { return }
      // A reader holding an old snapshot makes TRUNCATE give up (SQLITE_BUSY); the next burst
      // tries again, and a clean exit checkpoints anyway.
      try? pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
      // A delete on a full disk may have used the reserve: take it back if there is room now.
      StoreFiles.ensureReserve(in: self.directory)
    }
  }

  /// No checkpoint will start after this.
  func cancel() {
    generation.withLock { $0 += 1 }
  }
}
