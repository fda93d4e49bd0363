// SPDX-License-Identifier: MIT
//
// Where the daemon's work runs, in one place:
//
// - On the connection's thread, where a call arrives: everything that answers from memory or
//   from a read of the store (searches, properties, secrets). Such a call is answered without
//   a thread hop.
// - On `Blocking` threads: everything that waits: a store write (it returns once its commit is
//   synced to disk), Argon2id (a third of a second), a pinentry dialog (a person). Never on the
//   cooperative pool, whose two threads here must stay free for the rest of the program, and
//   never on the connection's thread, which must keep serving other callers meanwhile.
//
// Concurrent writes that each wait on their own thread are what lets the store's group commit
// acknowledge many of them with one sync.

import Foundation

/// Runs blocking work on threads kept for it, and resumes the caller when it is done.
public enum Blocking {
  /// Runs `body` on a blocking thread and returns its result.
  public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      BlockingPool.shared.submit { continuation.resume(returning: body()) }
    }
  }

  /// Runs `body` on a blocking thread and returns its result or rethrows its error.
  public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws
    -> T
  {
    try await withCheckedThrowingContinuation { continuation in
      BlockingPool.shared.submit { continuation.resume(with: Result { try body() }) }
    }
  }
}

/// Threads for blocking jobs: one is started when a job finds none idle (up to `maximum`), and
/// an idle one ends after a while. libdispatch's pool on Linux does not grow past the number
/// of cores for jobs that block (measured: 32 jobs sleeping 0.5 s took 4 s on 2 cores), so
/// 16 writers waiting on their syncs would be served four at a time.
final class BlockingPool: Sendable {
  static let shared = BlockingPool(maximum: 64)

  private let maximum: Int
  private let condition = NSCondition()
  nonisolated(unsafe) private var jobs: [@Sendable () -> Void] = []
  nonisolated(unsafe) private var threads = 0
  nonisolated(unsafe) private var idle = 0
  // Invariant: `jobs`, `threads` and `idle` are only touched with `condition` locked.

  init(maximum: Int) {
    self.maximum = maximum
  }

  func submit(_ job: @escaping @Sendable () -> Void) {
    condition.lock()
    defer { condition.unlock() }
    jobs.append(job)
    if idle > 0 {
      condition.signal()
    } else if threads < maximum {
      threads += 1
      Thread.detachNewThread { [self] in work() }
    }
  }

  private func work() {
    condition.lock()
    while true {
      if !jobs.isEmpty {
        let job = jobs.removeFirst()
        condition.unlock()
        job()
        condition.lock()
        continue
      }
      idle += 1
      let woken = condition.wait(until: Date(timeIntervalSinceNow: 30))
      idle -= 1
      if !woken, jobs.isEmpty {
        threads -= 1
        condition.unlock()
        return
      }
    }
  }
}
