// SPDX-License-Identifier: MIT
//
// Where a served object's replies and signals go. On the bus that is a `Connection`; in tests
// below the bus it is an `InMemoryTransport`, which hands calls straight to a handler and keeps
// what comes back, the way swift-nio tests a pipeline with an embedded channel. Handlers see
// only this protocol, so the same object tree runs on either.

/// The outgoing side of a served object: replies, signals, and the bus's name owners.
public protocol MessageTransport: AnyObject, Sendable {
  /// Sends the reply to `call`; callable from any thread (the transport keeps the order).
  func deliverReply(_ reply: Message, to call: Message)
  /// Sends `messages` (signals), in order.
  func send(_ messages: [Message]) async throws(DBusError)
  /// The unique name of the current owner of `name`, or nil if nobody owns it.
  func nameOwner(_ name: BusName) async throws(DBusError) -> BusName?
  /// The uid, pid and process start time of the connection `peer` (a unique name).
  func credentials(of peer: BusName) async throws(DBusError) -> PeerCredentials
  /// Runs `work` after a reply has gone (or, outside any call, soon), off the caller's path.
  /// A bus connection starts a task for it; an in-memory transport may queue it for the test
  /// to run (`InMemoryTransport.settle`).
  func afterReply(_ work: @escaping @Sendable () async -> Void)
}

extension MessageTransport {
  public func afterReply(_ work: @escaping @Sendable () async -> Void) {
    Task { await work() }
  }
}

extension MessageTransport {
  /// Emits a signal from `path`.
  public func emit(
    _ interface: InterfaceName, _ member: MemberName, from path: ObjectPath,
    _ body: [DBusValue] = []
  ) async throws(DBusError) {
    try await send([.signal(path: path, interface: interface, member: member, body: body)])
  }

  /// Emits `PropertiesChanged` for `interface` at `path`.
  public func emitPropertiesChanged(
    at path: ObjectPath, interface: InterfaceName, changed: [String: DBusValue],
    invalidated: [String] = []
  ) async throws(DBusError) {
    try await emit(
      PropertiesMethods.propertiesChanged, from: path, interface.rawValue, changed, invalidated)
  }
}

extension Connection: MessageTransport {
  public nonisolated func deliverReply(_ reply: Message, to call: Message) {
    if loop.isCurrent {
      assumeIsolated { $0.sendReply(reply, to: call) }
    } else {
      loop.execute { [self] in assumeIsolated { $0.sendReply(reply, to: call) } }
    }
  }
}
