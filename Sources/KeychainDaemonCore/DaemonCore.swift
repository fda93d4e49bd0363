// SPDX-License-Identifier: MIT
//
// The daemon's core: its parts, each named, built once by `SecretServiceDaemon` and handed to
// each front end it serves, to the call filters and to the lock timers. Everything a call needs
// beyond its request is one of these parts; only the prompt table is an actor.

import KeychainDBus
import KeychainStore
import Logging
import Synchronization

/// What a front end is built on: the store, and the parts that share it (sessions, prompts,
/// unlocks, access control, the lock timers' state and the announcers of changes).
public struct DaemonCore: Sendable {
  /// The keyrings.
  package let store: KeychainStore
  package let logger: Logger
  /// Open sessions (the Secret Service's, which KWallet and the management interfaces use
  /// for passwords too).
  package let sessions = SessionTable()
  /// Pending prompts.
  package let prompts = PromptTable()
  /// Runs prompts' dialogs, one at a time.
  package let prompter: PromptRunner
  /// Holds calls while the daemon finishes starting (see `CallGate`).
  package let gate: CallGate
  /// Opens collections with passwords; every unlock goes through it (see `Unlocker`).
  public let unlocker: Unlocker
  /// Per-application access and the audit log (see `AccessControl`).
  package let access: AccessControl
  /// When collections were last used, and their lock settings.
  package let locks: LockState
  /// Every API's announcer of changes (see `StoreEvent`), in the order they were added.
  package let announcers = Announcers()

  package init(
    store: KeychainStore, pinentry: String?, logger: Logger, holdingCalls: Bool,
    passwordHook: PasswordHook?, lockDefaults: LockPolicy, clock: any DaemonClock,
    access: AccessSettings
  ) {
    self.store = store
    self.logger = logger
    self.access = AccessControl(access, store: store, logger: logger)
    locks = LockState(store: store, clock: clock, defaults: lockDefaults)
    gate = CallGate(open: !holdingCalls)
    unlocker = Unlocker(store: store, hook: passwordHook, logger: logger)
    prompter = PromptRunner(
      store: store, pinentry: pinentry, logger: logger, unlocker: unlocker, access: self.access)
  }

  /// The time the daemon's timers go by (a `ManualClock` in tests).
  public var clock: any DaemonClock { locks.clock }

  /// Adds an announcer that hears every store event after those added before it (the Secret
  /// Service's is first: `SecretServiceDaemon` adds it as it is made).
  package func addAnnouncer(_ announcer: any ChangeAnnouncer) { announcers.add(announcer) }

  /// Adds a way to open a collection with nothing typed, tried before a password dialog.
  package func addDeviceUnlock(_ attempt: @escaping DeviceUnlocks.Attempt) {
    unlocker.devices.add(attempt)
  }

  /// Forgets everything a departed connection owned: its sessions and prompts.
  package func dropPeer(_ peer: BusName) async {
    let dropped = await prompts.drop(owner: peer) + sessions.drop(peer)
    if dropped > 0 { logger.debug("dropped \(dropped) sessions and prompts of \(peer)") }
  }
}

/// The announcers of every API, in the order they were added.
package final class Announcers: Sendable {
  private let added = Mutex<[any ChangeAnnouncer]>([])

  /// Adds the announcer of an API (it hears every event after those added before it).
  func add(_ announcer: any ChangeAnnouncer) { added.withLock { $0.append(announcer) } }

  /// The announcers, in order.
  var all: [any ChangeAnnouncer] { added.withLock { $0 } }
}
