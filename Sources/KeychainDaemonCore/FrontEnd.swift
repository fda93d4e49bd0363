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
