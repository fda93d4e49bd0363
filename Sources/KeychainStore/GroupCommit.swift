// SPDX-License-Identifier: MIT
//
// Group commit: writers that arrive while a commit is being synced are gathered into the next
// transaction, so that one fdatasync acknowledges all of them. A sync costs about 0.13 ms on
// this machine's disk and more on a laptop's: one per write would cap the store at a few
// thousand writes a second however many clients write, while one per batch lets throughput
// grow with the number of writers.
//
// Leader and followers: the first writer to find no commit running becomes the leader and runs
// every queued change in one transaction, each inside a savepoint of its own (a change that
// fails is rolled back alone and only its caller sees the error); the others wait until the
// leader has committed their change, then return. Every caller returns only after the commit
// that holds its change is on disk.

import Foundation
import GRDB
import Synchronization

final class GroupCommit: Sendable {
  private let database: DatabaseQueue
  /// Told each transaction's commit count once it is durable, before any caller returns.
  private let ledger: CommitLedger
  /// Guards `queue`, `leading` and every job's `outcome`; signalled when a batch is done.
  private let changed = NSCondition()
  nonisolated(unsafe) private var queue: [Job] = []
  nonisolated(unsafe) private var leading = false
  // Invariant: `queue` and `leading` are only touched with `changed` locked.

  /// One caller's change and, once its batch is done, the outcome.
  private final class Job: @unchecked Sendable {
    // Invariant: `change` runs once, on the leader's thread, while its caller waits in
    // `commit`; `outcome` is only touched with `changed` locked.
    let change: (Database) throws -> Void
    var outcome: Outcome = .pending

    init(_ change: @escaping (Database) throws -> Void) { self.change = change }
  }

  private enum Outcome {
    case pending
    case committed
    case failed(any Error)
  }

  /// How many transactions were committed, and how many changes they held (for tests and
  /// benchmarks: the ratio is the batching).
  let counts = Mutex((transactions: 0, changes: 0))

  init(_ database: DatabaseQueue, ledger: CommitLedger) {
    self.database = database
    self.ledger = ledger
  }

  /// Runs `change` in a durable transaction shared with concurrent callers, and returns its
  /// result once that transaction is synced. A failure of `change` rolls back only `change`.
  func commit<T>(_ change: (Database) throws -> T) throws -> T {
    try withoutActuallyEscaping(change) { change in
      var result: T?
      let job = Job { db in result = try change(db) }
      changed.lock()
      queue.append(job)
      while case .pending = job.outcome {
        guard !leading else {
          changed.wait()
          continue
        }
        // Lead one batch: everything queued so far, this caller's change included.
        leading = true
        let batch = queue
        queue = []
        changed.unlock()
        let outcomes = run(batch)
        changed.lock()
        for (job, outcome) in zip(batch, outcomes) { job.outcome = outcome }
        leading = false
        // Wakes the callers whose change was in the batch, and one of the others to lead next.
        changed.broadcast()
      }
      let outcome = job.outcome
      changed.unlock()
      if case .failed(let error) = outcome { throw error }
      return result!
    }
  }

  /// One transaction for the whole batch; each change in a savepoint of its own.
  private func run(_ batch: [Job]) -> [Outcome] {
    var outcomes = [Outcome](repeating: .committed, count: batch.count)
    do {
      var count: Int64 = 0
      try database.writeWithoutTransaction { db in
        try db.inTransaction(.immediate) {
          for (index, job) in batch.enumerated() {
            do {
              try db.inSavepoint {
                try job.change(db)
                return .commit
              }
            } catch {
              outcomes[index] = .failed(error)
            }
          }
          // A batch whose every change failed writes nothing at all.
          guard outcomes.contains(where: { if case .committed = $0 { true } else { false } })
          else { return .rollback }
          count = try Int64.fetchOne(db.cachedStatement(sql: Schema.bumpCommitCount)) ?? 0
          return .commit
        }
      }
      if count > 0 { ledger.acknowledge(count) }
      counts.withLock {
        $0.transactions += 1
        $0.changes += batch.count
      }
    } catch {
      // The commit itself failed (a full disk, an I/O error): nothing of the batch was kept.
      for index in outcomes.indices {
        if case .committed = outcomes[index] { outcomes[index] = .failed(error) }
      }
    }
    return outcomes
  }
}
