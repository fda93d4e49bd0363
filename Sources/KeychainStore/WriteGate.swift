// SPDX-License-Identifier: MIT
//
// Writes held until a check of the database's pages has run, and refused once it finds
// damage. keychaind runs SQLite's quick_check beside its start-up, so that a large store does
// not delay the first answer: reads are served meanwhile, and a write waits for the verdict.
// A file found damaged is then read but never written: what can still be read can be
// exported, and nothing is written over what a repair would need (nor checkpointed into it).

import Foundation

/// Whether writes may go to the file now (see the top of this file).
final class WriteGate: Sendable {
  private enum State {
    case open
    case checking
    case refused(StoreError)
  }

  private let condition = NSCondition()
  nonisolated(unsafe) private var state = State.open
  // Invariant: `state` is only touched with `condition` locked.

  /// Holds writes from now until `decide`.
  func hold() {
    condition.lock()
    defer { condition.unlock() }
    state = .checking
  }

  /// Lets writes through, or refuses them from now on with `damage`.
  func decide(_ damage: StoreError?) {
    condition.lock()
    defer { condition.unlock() }
    state = damage.map { .refused($0) } ?? .open
    condition.broadcast()
  }

  /// Returns once writes may go to the file; throws the damage that refuses them.
  func waitUntilOpen() throws {
    condition.lock()
    defer { condition.unlock() }
    while true {
      switch state {
      case .open: return
      case .checking: condition.wait()
      case .refused(let damage): throw damage
      }
    }
  }

  /// Whether the file was found damaged: it is then never written, not even by a checkpoint.
  var refuses: Bool {
    condition.lock()
    defer { condition.unlock() }
    if case .refused = state { return true }
    return false
  }
}

extension KeychainStore {
  /// Holds every write of the file until `checkBeforeWriting` has run (see `WriteGate`):
  /// call it before the store is used, then run the check on a thread of your choosing.
  public func holdWritesUntilChecked() {
    writeGate.hold()
  }

  /// Runs SQLite's quick_check on the file, then lets writes through, or refuses them (as
  /// `StoreError.damaged`) if it found damage; returns the problems found. A check that cannot
  /// run (the file unreadable) refuses them too.
  @discardableResult
  public func checkBeforeWriting() -> [String] {
    let problems: [String]
    do {
      problems = try quickCheck()
    } catch {
      problems = ["quick_check could not run: \(error)"]
    }
    writeGate.decide(
      problems.isEmpty
        ? nil
        : StoreError.damaged(
          path: directory + "/keychain.db",
          problem: "SQLite's quick_check finds it damaged ("
            + problems.prefix(3).joined(separator: "; ") + ")",
          remedy:
            "keychaind reads it but writes nothing to it: export what it can read (keychainctl export), then restore a backup; keychainctl check describes the damage"
        ))
    return problems
  }
}
