// SPDX-License-Identifier: MIT
//
// Another API served beside the Secret Service, on the same store and the same core (views,
// events, unlocks, prompts, access control): KWallet's, the Flatpak portal's and keychaind's
// own Import, Locking and Access interfaces, each in its own target. The daemon knows a front
// end only by this protocol: it mounts the front end's objects on its tree, adds its
// interfaces to the service object, tells it of callers that leave, and lets it hear every
// store event (through an announcer added on the core).

import KeychainDBus

/// An API served beside the Secret Service (see the top of this file).
public protocol FrontEnd: Sendable {
  /// Mounts its objects on the daemon's tree.
  func mount(on tree: inout Mounts)

  /// Interfaces it adds to the service object, /org/freedesktop/secrets, after the Secret
  /// Service's own (the project's Import, Locking and Access interfaces are served so).
  func serviceInterfaces() -> [any DBusInterface]

  /// A caller left the bus: what it held (open handles, sessions) goes.
  func callerLeft(_ peer: BusName, on connection: any MessageTransport) async
}

extension FrontEnd {
  public func mount(on tree: inout Mounts) {}
  public func serviceInterfaces() -> [any DBusInterface] { [] }
  public func callerLeft(_ peer: BusName, on connection: any MessageTransport) async {}
}

/// What a front end is built on: the daemon's shared state, through which it makes per-call
/// views of the store, unlocks, prompts and announces (see `ServiceState`).
public struct DaemonCore: Sendable {
  package let state: ServiceState

  /// The time the daemon's timers go by (a `ManualClock` in tests).
  package var clock: any DaemonClock { state.clock }

  /// Adds an announcer that hears every store event after the Secret Service's.
  package func addAnnouncer(_ announcer: any ChangeAnnouncer) { state.addAnnouncer(announcer) }

  /// Adds a way to open a collection with nothing typed, tried before a password dialog.
  package func addDeviceUnlock(_ attempt: @escaping DeviceUnlocks.Attempt) {
    state.unlocker.devices.add(attempt)
  }
}
