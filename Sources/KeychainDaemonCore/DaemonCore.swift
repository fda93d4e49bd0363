// SPDX-License-Identifier: MIT
//
// The daemon's core as front ends and the session side see it: built once by
// `SecretServiceDaemon`, handed to each front end it serves and to the lock timers.

import KeychainDBus
import KeychainStore

/// What a front end is built on: the daemon's shared state, through which it makes per-call
/// views of the store, unlocks, prompts and announces (see `ServiceState`).
public struct DaemonCore: Sendable {
  package let state: ServiceState

  package init(state: ServiceState) { self.state = state }

  /// The time the daemon's timers go by (a `ManualClock` in tests).
  public var clock: any DaemonClock { state.clock }

  /// Opens collections with passwords; every unlock goes through it (see `Unlocker`).
  public var unlocker: Unlocker { state.unlocker }

  /// Adds an announcer that hears every store event after the Secret Service's.
  package func addAnnouncer(_ announcer: any ChangeAnnouncer) { state.addAnnouncer(announcer) }

  /// Adds a way to open a collection with nothing typed, tried before a password dialog.
  package func addDeviceUnlock(_ attempt: @escaping DeviceUnlocks.Attempt) {
    state.unlocker.devices.add(attempt)
  }

  // MARK: Locking, for the session side (keychaind's lock timers and login unlock)

  /// Tells clients that `collections` were unlocked outside any call (at login, through the
  /// control socket), together with what the password hook did meanwhile.
  public func announceUnlocked(
    _ collections: [String], _ effects: PasswordHookEffects, on connection: any MessageTransport
  ) async {
    // What the hook did first, as before: then the unlock of the collections themselves.
    await state.publish(
      StoreEvent.hooked(effects)
        + [.lockChanged(collections, changed: Set(collections), locked: false)],
      on: connection)
  }

  /// Locks the unlocked collections whose lock policy (their own over the defaults) `applies`
  /// says should lock now, given the collection's name, and tells clients; returns their
  /// names. A collection deleted meanwhile is skipped. A call in flight is not interrupted: it
  /// holds what it read, and the next call finds the collection locked.
  @discardableResult
  public func lock(
    on connection: any MessageTransport, where applies: (String, LockPolicy) -> Bool
  ) async -> [String] {
    let defaults = state.lockDefaults
    guard let own = try? state.lockPolicies() else { return [] }
    let locked =
      (try? state.lockEverything { applies($0, (own[$0] ?? LockPolicy()).over(defaults)) }) ?? []
    await state.publish([.locked(locked)], on: connection)
    state.lastUse.withLock { uses in
      for name in locked { uses[name] = nil }
    }
    return locked
  }

  /// Each collection's own lock settings (those it does not set follow the defaults).
  public func lockPolicies() throws -> [String: LockPolicy] {
    try state.lockPolicies()
  }

  /// How long ago a client last read or wrote a secret of `collection`, or it was unlocked;
  /// zero the first time it is asked about a collection.
  public func sinceLastUse(of collection: String) -> Duration {
    let now = state.clock.now
    return now
      - state.lastUse.withLock { uses in
        if let last = uses[collection] { return last }
        uses[collection] = now
        return now
      }
  }
}
