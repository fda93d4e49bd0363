// SPDX-License-Identifier: MIT
//
// Calls held while the daemon finishes starting: `keychaind --unlock` owns the bus name before
// Argon2id has derived the login key (a third of a second), so that clients and D-Bus
// activation find the service at once; a call that arrives meanwhile waits for the unlock
// rather than finding the collection locked and asking for a password.

import KeychainDBus
import Synchronization

/// Holds every call, introspection included, until `open()`; the first of the daemon's filters.
package final class CallGate: CallFilter {
  private let state: Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>

  init(open: Bool) {
    state = Mutex((open, []))
  }

  /// Returns at once when open; otherwise when `open()` is called. On the caller's executor
  /// (`nonisolated(nonsending)`): every call passes here, and an open gate costs no hop.
  nonisolated(nonsending) func wait() async {
    // The open gate must not suspend: a continuation, even one resumed at once, moves the call
    // off the connection's thread, and every call passes here.
    if state.withLock({ $0.open }) { return }
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state in
        if !state.open { state.waiting.append(continuation) }
        return state.open
      }
      if ready { continuation.resume() }
    }
  }

  /// Lets every held call and every later one through.
  package func open() {
    let waiting = state.withLock { state in
      state.open = true
      defer { state.waiting = [] }
      return state.waiting
    }
    for continuation in waiting { continuation.resume() }
  }

  package nonisolated(nonsending) func filter(_ request: MethodRequest, next: CallFilterNext)
    async throws -> [DBusValue]
  {
    await wait()
    return try await next(request)
  }
}
