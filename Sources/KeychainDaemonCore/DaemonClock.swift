// SPDX-License-Identifier: MIT
//
// The time the daemon's timers go by, injected so that tests can move it (as NIO's
// EmbeddedEventLoop.advanceTime does): "lock after N minutes unused" and "after N minutes
// idle" are tested in memory in milliseconds, with no scaled minute and no sleep.

import Synchronization

/// A monotonic clock: the time since some fixed start, and sleeping for a while.
public protocol DaemonClock: Sendable {
  /// The time since the clock's start; never goes back.
  var now: Duration { get }
  /// Returns after `duration` on this clock; throws if the task was cancelled.
  func sleep(for duration: Duration) async throws
}

/// The machine's monotonic clock (CLOCK_MONOTONIC: it stops while the machine sleeps, as
/// "unused" and "idle" should).
public struct SystemClock: DaemonClock {
  private let start = ContinuousClock.now

  public init() {}

  public var now: Duration { ContinuousClock.now - start }

  public func sleep(for duration: Duration) async throws {
    try await Task.sleep(for: duration)
  }
}

/// A clock that moves only when told (`advance`), for tests: sleepers wake, in order of their
/// deadlines, when the time reaches them (a cancelled sleeper notices when it wakes).
public final class ManualClock: DaemonClock {
  private struct Sleeper {
    let deadline: Duration
    let continuation: CheckedContinuation<Void, Never>
  }
  private let state = Mutex<(now: Duration, sleepers: [Sleeper])>((.zero, []))

  public init() {}

  public var now: Duration { state.withLock { $0.now } }

  /// Moves the time on by `duration`, waking the sleepers whose deadline it reaches.
  public func advance(by duration: Duration) {
    let due = state.withLock { state in
      state.now += duration
      let now = state.now
      let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
      state.sleepers.removeAll { $0.deadline <= now }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }

  public func sleep(for duration: Duration) async throws {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state in
        guard duration > .zero else { return true }
        state.sleepers.append(Sleeper(deadline: state.now + duration, continuation: continuation))
        return false
      }
      if ready { continuation.resume() }
    }
    try Task.checkCancellation()
  }
}
