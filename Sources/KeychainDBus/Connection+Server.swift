// SPDX-License-Identifier: MIT
//
// The server side of a connection: method calls to exported paths reach a handler on the
// connection's thread, which answers through a `Responder` at once or later from any task.

import CKeychainDBus
import Synchronization

/// Receives the method calls for one registered path, or for a whole subtree.
public protocol MethodCallHandler: Sendable {
  /// Called on the connection's thread for each method call. It must not block: answer
  /// through `responder`, at once or later from any task.
  func handle(_ call: Message, responder: Responder)
  /// The longest byte array (`ay`) a call may carry: a call with a longer one is answered
  /// `LimitsExceeded` before the array is copied out of libdbus. No limit by default.
  var maximumByteArray: Int { get }
}

extension MethodCallHandler {
  public var maximumByteArray: Int { .max }
}

extension Connection {
  /// Routes method calls for `path` to `handler`; with `subtree`, also every path below it
  /// that has no registration of its own (a libdbus fallback).
  public func register(_ handler: any MethodCallHandler, at path: ObjectPath, subtree: Bool = true)
    throws(DBusError)
  {
    guard isOpen else { throw Connection.closedError }
    guard handlers[path] == nil else {
      throw DBusError(.failed, "a handler is already registered at \(path)")
    }
    var vtable = DBusObjectPathVTable()
    vtable.message_function = { _, message, data in
      guard let connection = WeakConnection.from(data) else {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
      }
      // As for the filter in `attach`: libdbus calls this from a dispatch on the loop thread and
      // holds the message until it returns; `assumeIsolated` runs the closure at once on this
      // thread, and `dispatchCall` copies the call into a Swift `Message` (no handler sees the
      // pointer). The capture only quiets the isolation checker, which cannot see that the
      // actor-isolated closure runs here: the pointer never crosses a thread.
      nonisolated(unsafe) let message = message!
      return connection.assumeIsolated { $0.dispatchCall(message) }
    }
    // libdbus releases the user data when the path is unregistered or the connection is freed.
    vtable.unregister_function = { _, data in WeakConnection.release(data) }
    let me = WeakConnection.retained(self)
    let error = CError()
    // libdbus copies the vtable.
    let ok =
      subtree
      ? dbus_connection_try_register_fallback(raw, path.rawValue, &vtable, me, &error.value)
      : dbus_connection_try_register_object_path(raw, path.rawValue, &vtable, me, &error.value)
    guard ok != 0 else {
      WeakConnection.release(me)
      throw error.swiftError(default: "cannot register \(path)")
    }
    handlers[path] = handler
  }

  /// Removes the registration at `path`.
  public func unregister(_ path: ObjectPath) {
    guard handlers.removeValue(forKey: path) != nil else { return }
    dbus_connection_unregister_object_path(raw, path.rawValue)
  }

  private func dispatchCall(_ pointer: OpaquePointer) -> DBusHandlerResult {
    guard dbus_message_get_type(pointer) == DBUS_MESSAGE_TYPE_METHOD_CALL else {
      return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }
    // libdbus picked the deepest registration at or above the path; find the same one.
    var path =
      dbus_message_get_path(pointer).map { ObjectPath(unchecked: String(cString: $0)) }
      ?? .root
    while handlers[path] == nil, path != .root { path = path.parent }
    guard let handler = handlers[path] else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    do {
      let message = try MessageDecoder.decode(pointer, byteArrayLimit: handler.maximumByteArray)
      handler.handle(message, responder: Responder(transport: self, call: message))
    } catch {
      Responder(transport: self, call: MessageDecoder.decode(header: pointer)).fail(
        DBusError(
          .limitsExceeded,
          "a byte array of \(error.count) bytes is over the limit of \(handler.maximumByteArray)"))
    }
    return DBUS_HANDLER_RESULT_HANDLED
  }

  /// Sends a reply made by a `Responder`; an unencodable reply becomes a `Failed` error.
  func sendReply(_ reply: Message, to call: Message) {
    guard isOpen else { return }
    do {
      try send(reply)
    } catch {
      logger.error(
        "reply to \(call.member?.rawValue ?? "?") could not be encoded: \(error.message)")
      _ = try? send(
        call.makeErrorReply(DBusError(.failed, "the service could not encode its reply")))
    }
  }
}

/// Answers one method call, exactly once, from any thread.
///
/// A responder dropped without an answer sends `org.freedesktop.DBus.Error.Failed`, so a caller
/// is never left waiting for its timeout because of a bug in a handler.
public final class Responder: Sendable {
  /// Where the call came from, and where its reply and any signals go.
  public let transport: any MessageTransport
  private let call: Message
  private let answered = Atomic<Bool>(false)

  /// A responder for `call`, answering through `transport`.
  public init(transport: any MessageTransport, call: Message) {
    self.transport = transport
    // Keep only the header: the arguments may be large, and may be secret.
    var header = call
    header.body = []
    self.call = header
  }

  /// The unique name of the caller.
  public var caller: BusName? { call.sender }

  /// Sends the method's return values.
  public func reply(_ body: [DBusValue] = []) {
    answer(call.makeReply(body))
  }

  /// Sends an error reply.
  public func fail(_ error: DBusError) {
    answer(call.makeErrorReply(error))
  }

  private func answer(_ message: Message) {
    guard
      answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged, !call.noReplyExpected
    else { return }
    transport.deliverReply(message, to: call)
  }

  deinit {
    if !answered.load(ordering: .acquiring) {
      fail(DBusError(.failed, "the service did not answer this call"))
    }
  }
}
