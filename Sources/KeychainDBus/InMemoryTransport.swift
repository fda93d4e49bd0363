// SPDX-License-Identifier: MIT
//
// An object tree served with no bus at all: calls go straight to the handler, replies and
// signals are kept in memory for the test to read. Nothing is marshalled, so what it tests is
// the tree's own logic (dispatch, argument checks, errors, the order of signals and replies);
// the wire is tested with a private dbus-daemon.

import Foundation
import Synchronization

/// Serves one `MethodCallHandler` in memory, for tests.
public final class InMemoryTransport: MessageTransport {
  private struct State {
    var nextSerial: UInt32 = 1
    var waiting: [UInt32: CheckedContinuation<Message, Never>] = [:]
    /// Signals, and replies in the order they were sent among them.
    var sent: [Message] = []
    /// What `credentials(of:)` answers for each sender set with `setCredentials`.
    var credentials: [BusName: PeerCredentials] = [:]
    /// After-reply work waiting for `settle()`, when the test drives it.
    var queued: [@Sendable () async -> Void] = []
  }

  private let state = Mutex(State())
  private let handler: any MethodCallHandler
  private let queuesAfterReplyWork: Bool

  /// Serves `handler`. With `queuingAfterReplyWork`, the work a call leaves for after its reply
  /// (signals that follow it, a prompt's dialog) waits until the test calls `settle()`, so a
  /// test sees it happen with no sleep; otherwise it runs in a task of its own, as on a bus.
  public init(serving handler: any MethodCallHandler, queuingAfterReplyWork: Bool = false) {
    self.handler = handler
    queuesAfterReplyWork = queuingAfterReplyWork
  }

  public func afterReply(_ work: @escaping @Sendable () async -> Void) {
    guard queuesAfterReplyWork else {
      Task { await work() }
      return
    }
    state.withLock { $0.queued.append(work) }
  }

  /// Runs the queued after-reply work, and the work it queues in turn, until none is left.
  public func settle() async {
    while let work = state.withLock({ $0.queued.isEmpty ? nil : $0.queued.removeFirst() }) {
      await work()
    }
  }

  /// Sends a method call from `sender` (default `:1.1`) and waits for its reply: a method
  /// return or an error.
  public func call(
    _ path: ObjectPath, _ interface: InterfaceName?, _ member: MemberName,
    _ body: [DBusValue] = [], from sender: BusName? = nil
  ) async -> Message {
    var message = Message.methodCall(
      destination: BusName(unchecked: ":1.0"), path: path, interface: interface, member: member,
      body: body)
    message.sender = sender ?? BusName(unchecked: ":1.1")
    message.serial = state.withLock { state in
      defer { state.nextSerial += 1 }
      return state.nextSerial
    }
    let serial = message.serial
    return await withCheckedContinuation { continuation in
      // Registered before the handler runs: it may answer before `handle` returns.
      state.withLock { $0.waiting[serial] = continuation }
      handler.handle(message, responder: Responder(transport: self, call: message))
    }
  }

  /// Calls a declared method on `path` from `sender`; the results typed, an error reply
  /// thrown as the `DBusError` it carries.
  public func call<each Input: DBusRepresentable, each Output: DBusRepresentable>(
    _ path: ObjectPath, _ method: Takes<repeat each Input>.Returns<repeat each Output>,
    _ arguments: repeat each Input, from sender: BusName? = nil
  ) async throws(DBusError) -> (repeat each Output) {
    let reply = await call(
      path, method.interface, method.name, method.arguments(repeat each arguments), from: sender)
    return try method.decodeResults(try Self.body(of: reply))
  }

  /// Calls a declared method that returns nothing on `path` from `sender`; an error reply
  /// thrown as the `DBusError` it carries.
  public func call<each Input: DBusRepresentable>(
    _ path: ObjectPath, _ method: Takes<repeat each Input>.ReturnsNothing,
    _ arguments: repeat each Input, from sender: BusName? = nil
  ) async throws(DBusError) {
    let reply = await call(
      path, method.interface, method.name, method.arguments(repeat each arguments), from: sender)
    _ = try Self.body(of: reply)
  }

  /// A method return's body, or the `DBusError` an error reply carries.
  public static func body(of reply: Message) throws(DBusError) -> [DBusValue] {
    guard reply.kind == .methodReturn else {
      throw DBusError(reply.errorName ?? .failed, reply.body.first?.string ?? "")
    }
    return reply.body
  }

  /// Everything sent so far (signals and replies, in order), emptied.
  public func takeSent() -> [Message] {
    state.withLock { state in
      defer { state.sent = [] }
      return state.sent
    }
  }

  public func deliverReply(_ reply: Message, to call: Message) {
    let waiter = state.withLock { state in
      state.sent.append(reply)
      return state.waiting.removeValue(forKey: call.serial)
    }
    waiter?.resume(returning: reply)
  }

  public func send(_ messages: [Message]) async throws(DBusError) {
    state.withLock { $0.sent.append(contentsOf: messages) }
  }

  /// Nobody owns a name in memory: there is no bus.
  public func nameOwner(_ name: BusName) async throws(DBusError) -> BusName? { nil }

  /// Makes `credentials(of: sender)` answer `credentials`, as if the bus had said so.
  public func setCredentials(_ credentials: PeerCredentials, for sender: BusName) {
    state.withLock { $0.credentials[sender] = credentials }
  }

  /// What `setCredentials` set for `peer`; by default this process's own uid, pid and start
  /// time, as a bus would report a caller in the same process.
  public func credentials(of peer: BusName) async throws(DBusError) -> PeerCredentials {
    if let set = state.withLock({ $0.credentials[peer] }) { return set }
    let pid = UInt32(getpid())
    return PeerCredentials(
      uid: UInt32(getuid()), pid: pid, processStartTime: PeerCredentials.startTime(ofProcess: pid))
  }
}
