// SPDX-License-Identifier: MIT
//
// One method call as a handler and the call filters see it: the message, where it came from,
// the declaration it matched, and a context the handler and the filters share for the length
// of the call (what it used, work for after the reply), as Hummingbird's request context does.

import Synchronization

/// One method call, as an interface implementation sees it.
public struct MethodRequest: Sendable {
  /// The whole call, header and arguments.
  public let message: Message
  /// Where the call came from: the bus connection, or an in-memory transport in tests. For
  /// signals and the bus's name owners.
  public let connection: any MessageTransport
  /// What the handler and the filters note about this call (see `CallContext`).
  public let context = CallContext()
  /// The caller's unique bus name, as the daemon keys what a caller holds (sessions, prompts,
  /// its application): the sender, behind the server's `callerPrefix` when it has one.
  public let caller: BusName

  init(message: Message, connection: any MessageTransport, callerPrefix: String = "") {
    self.message = message
    self.connection = connection
    let sender = message.sender ?? BusName(unchecked: ":0.0")
    caller = callerPrefix.isEmpty ? sender : BusName(unchecked: callerPrefix + sender.rawValue)
  }

  /// Runs `action` once the reply to this call has been sent: for signals that must not
  /// overtake the reply, such as a prompt's `Completed` after `Prompt()` returned.
  public func afterReply(_ action: @escaping @Sendable () async -> Void) {
    context.state.withLock { $0.actions.append(action) }
  }

  /// Runs `action` as soon as this call's answer, a reply or an error, has been handed to the
  /// connection, on the thread that answered it and without suspending: for bookkeeping the
  /// caller need not wait for, such as the audit log's lines. Unlike `afterReply`, it runs
  /// after an error too, and costs no hop to another thread. `action` must not register more
  /// work on the request: nothing runs it, and it would keep the request alive.
  public func whenAnswered(_ action: @escaping @Sendable () -> Void) {
    context.state.withLock { $0.answered.append(action) }
  }

  /// The caller's uid, pid and process start time, from the bus (see `PeerCredentials`).
  public func callerCredentials() async throws(DBusError) -> PeerCredentials {
    try await connection.credentials(of: message.sender ?? BusName(unchecked: ":0.0"))
  }

  /// The object path the call was sent to.
  public var path: ObjectPath { message.path ?? .root }
  /// The method's name.
  public var member: MemberName { message.member ?? "Unknown" }
  /// The declaration the call matched (among overloads, by its arguments' signature); set by
  /// the object server before a handler runs.
  public internal(set) var method: MethodDescription?
  /// The call's arguments, already checked against the declared input signature.
  public var arguments: [DBusValue] { message.body }

  /// Argument `index` converted to `T`. The server checked the signature, so this fails only
  /// when a handler asks for a type its own declaration does not have.
  public func argument<T: DBusRepresentable>(_ index: Int, as type: T.Type = T.self)
    throws(DBusError) -> T
  {
    guard index < arguments.count else {
      throw DBusError(.invalidArgs, "missing argument \(index) of \(member)")
    }
    return try T(dbusValue: arguments[index])
  }
}

/// What one call's handler and filters note for each other: values by type, and work to run
/// after the reply. A filter reads after the call what the handler recorded (the collections it
/// used, whether it made a large answer) and acts on it once, for every method.
public final class CallContext: Sendable {
  @usableFromInline struct State {
    var actions: [@Sendable () async -> Void] = []
    var answered: [@Sendable () -> Void] = []
    /// One box per type of value, a handful at most: a scan costs less than hashing.
    @usableFromInline var values: [AnyObject] = []
  }
  @usableFromInline let state = Mutex(State())

  init() {}

  // Measured with callgrind, per GetSecret: `modify` and `value` are inlinable, so that each
  // caller gets them specialized for its `T` (compiled once for any `T`, every call looked up
  // the metadata of `Optional<T>` in the runtime's cache: 2,000 instructions a GetSecret). Each
  // value sits in a box of its own type, found by a class cast: kept as `any Sendable`, a value
  // came back out through a dynamic cast of 400 instructions (net of the boxes: 500 to 1,200).

  /// Changes the call's value of type `T`, starting from `initial` if it has none yet.
  @inlinable
  public func modify<T: Sendable>(
    _ initial: @autoclosure () -> T, _ change: (inout T) -> Void
  ) {
    state.withLock { state in
      for case let box as ValueBox<T> in state.values {
        change(&box.value)
        return
      }
      var value = initial()
      change(&value)
      state.values.append(ValueBox(value))
    }
  }

  /// The call's value of type `T`, if something recorded one.
  @inlinable
  public func value<T: Sendable>(_ type: T.Type = T.self) -> T? {
    state.withLock { state in
      for case let box as ValueBox<T> in state.values { return box.value }
      return nil
    }
  }

  /// Runs the work registered with `whenAnswered`, leaving none.
  func runAnswered() {
    let answered = state.withLock { state in
      defer { state.answered = [] }
      return state.answered
    }
    for action in answered { action() }
  }

  /// The after-reply work so far, leaving none.
  func takeActions() -> [@Sendable () async -> Void] {
    state.withLock { state in
      defer { state.actions = [] }
      return state.actions
    }
  }
}

/// One value of a `CallContext`. Read and changed only under the context's lock, which is what
/// makes it Sendable, and why its accesses need no exclusivity check of their own.
@usableFromInline final class ValueBox<T>: @unchecked Sendable {
  @usableFromInline @exclusivity(unchecked) var value: T
  @usableFromInline init(_ value: T) { self.value = value }
}
