// SPDX-License-Identifier: MIT

import CKeychainDBus
import Logging
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A connection to a message bus, owned by one thread.
///
/// The actor runs on its connection's own thread (`EventLoop`), so every libdbus call happens
/// there. Call its methods from any task; they hop onto that thread. Method calls that arrive
/// for exported objects are handed to `MethodCallHandler`s on the same thread.
public actor Connection {
  let loop: EventLoop
  /// The libdbus connection; touched only on the loop thread.
  // Invariant: this is the one reference `dbus_connection_open_private` returned, owned by the
  // actor and dropped by `deinit` (on the loop thread). Isolated code runs on the loop thread,
  // so it may use `raw` freely; `nonisolated(unsafe)` is only for `deinit`, which hands it on.
  nonisolated(unsafe) let raw: OpaquePointer
  /// The unique name the bus gave this connection, such as `:1.42`.
  public nonisolated let uniqueName: BusName
  nonisolated let logger: Logger

  var isOpen = true
  var handlers: [ObjectPath: any MethodCallHandler] = [:]
  var subscriptions: [UInt64: Subscription] = [:]
  var nextSubscriptionID: UInt64 = 1
  nonisolated let nameEventsContinuation: AsyncStream<NameEvent>.Continuation
  /// `NameAcquired` and `NameLost` for this connection, in order.
  public nonisolated let nameEvents: AsyncStream<NameEvent>

  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    loop.asUnownedSerialExecutor()
  }

  /// Connects to the bus at `address` (such as `unix:path=/run/user/1000/bus`) and registers.
  public static func connect(to address: String, logger: Logger? = nil) async throws(DBusError)
    -> Connection
  {
    let loop = EventLoop.start()
    let opened = try await loop.run { () throws(DBusError) -> OpenedConnection in
      try OpenedConnection.open(address)
    }
    let connection = Connection(
      loop: loop, raw: opened.pointer, uniqueName: opened.uniqueName,
      logger: logger ?? Logger(label: "keychain.dbus"))
    try await connection.attach()
    return connection
  }

  /// Connects to the session bus named by `DBUS_SESSION_BUS_ADDRESS`.
  public static func sessionBus(logger: Logger? = nil) async throws(DBusError) -> Connection {
    guard let address = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }),
      !address.isEmpty
    else {
      throw DBusError(.disconnected, "no session bus: DBUS_SESSION_BUS_ADDRESS is not set")
    }
    return try await connect(to: address, logger: logger)
  }

  private init(loop: EventLoop, raw: OpaquePointer, uniqueName: BusName, logger: Logger) {
    self.loop = loop
    self.raw = raw
    self.uniqueName = uniqueName
    self.logger = logger
    (nameEvents, nameEventsContinuation) = AsyncStream.makeStream()
  }

  private func attach() throws(DBusError) {
    guard loop.attach(raw),
      dbus_connection_add_filter(
        raw,
        { _, message, data in
          guard let connection = WeakConnection.from(data) else {
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
          }
          // libdbus calls filters from `dbus_connection_dispatch`, on the loop thread, and holds
          // its own reference to the message until the filter returns. `assumeIsolated` runs
          // the closure at once on this thread (and traps elsewhere); `filter` copies what it
          // needs into a Swift `Message` and keeps no pointer. The capture only quiets the
          // isolation checker, which cannot see that the actor-isolated closure runs here: the
          // pointer never crosses a thread.
          nonisolated(unsafe) let message = message!
          return connection.assumeIsolated { $0.filter(message) }
        }, WeakConnection.retained(self), WeakConnection.release) != 0
    else { throw MessageEncoder.outOfMemory }
    // Called only on the loop thread; `deinit`'s closure clears it there before `raw` goes.
    loop.afterIteration = { [raw] in
      while dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
    }
  }

  deinit {
    // The last reference is gone: no task can use the connection any more. Close it on its
    // own thread, then let the thread end.
    // This copy hands the actor's reference to the `@Sendable` closure below, its last user,
    // which runs on the loop thread (the only thread that calls libdbus for this connection).
    // It clears `afterIteration`, the other holder of the pointer, before closing, and its
    // unref balances the open.
    nonisolated(unsafe) let raw = raw
    let loop = loop
    nameEventsContinuation.finish()
    loop.execute {
      loop.afterIteration = nil
      dbus_connection_close(raw)
      dbus_connection_unref(raw)
    }
    loop.stop()
  }

  /// Closes the connection. Later calls fail with `Disconnected`; signal streams end.
  public func close() {
    guard isOpen else { return }
    isOpen = false
    for path in handlers.keys { dbus_connection_unregister_object_path(raw, path.rawValue) }
    handlers.removeAll()
    for subscription in subscriptions.values { subscription.continuation.finish() }
    subscriptions.removeAll()
    dbus_connection_close(raw)
  }

  /// Whether the connection is still open.
  public var isConnected: Bool { isOpen && dbus_connection_get_is_connected(raw) != 0 }

  // MARK: Sending

  /// Sends a message without waiting for a reply; returns its serial.
  @discardableResult
  public func send(_ message: Message) throws(DBusError) -> UInt32 {
    guard isOpen else { throw Connection.closedError }
    let encoded = try MessageEncoder.encode(message)
    var serial: UInt32 = 0
    guard dbus_connection_send(raw, encoded.pointer, &serial) != 0 else {
      throw MessageEncoder.outOfMemory
    }
    return serial
  }

  /// Sends several messages in one visit to the connection's thread: for many signals at once
  /// (one per item of a large collection), where a hop per message would cost more than the
  /// message. A message that cannot be encoded is skipped, and the first such error thrown
  /// once the others are sent.
  public func send(_ messages: [Message]) throws(DBusError) {
    var failure: DBusError?
    for message in messages {
      do { _ = try send(message) } catch { failure = failure ?? error }
    }
    if let failure { throw failure }
  }

  /// Calls a method and waits for its reply. An error reply is thrown as a `DBusError`;
  /// no reply within `timeout` throws `NoReply`.
  public func call(_ message: Message, timeout: Duration = .seconds(25)) async throws(DBusError)
    -> Message
  {
    guard isOpen else { throw Connection.closedError }
    let encoded = try MessageEncoder.encode(message)
    let milliseconds = Int32(clamping: timeout.components.seconds * 1000)
    var pendingCall: OpaquePointer?
    guard dbus_connection_send_with_reply(raw, encoded.pointer, &pendingCall, milliseconds) != 0
    else { throw MessageEncoder.outOfMemory }
    guard let pendingCall else { throw Connection.closedError }
    let result = await withCheckedContinuation { continuation in
      PendingReply.await(pendingCall, continuation)
    }
    return try result.get()
  }

  static let closedError = DBusError(.disconnected, "the D-Bus connection is closed")

  // MARK: Incoming messages

  /// Sees every incoming message before object dispatch: signals go to subscribers.
  private func filter(_ pointer: OpaquePointer) -> DBusHandlerResult {
    guard dbus_message_get_type(pointer) == DBUS_MESSAGE_TYPE_SIGNAL else {
      return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }
    let message = MessageDecoder.decode(pointer)
    deliverSignal(message)
    return DBUS_HANDLER_RESULT_HANDLED
  }
}

/// What libdbus callbacks get as user data: a weak reference, retained by libdbus and released
/// through its free function. A message dispatched while the actor is being freed finds nil
/// here instead of a dangling pointer.
final class WeakConnection: Sendable {
  nonisolated(unsafe) weak var connection: Connection?
  // Invariant: written once in init; Swift weak loads are thread-safe.

  private init(_ connection: Connection) { self.connection = connection }

  static func retained(_ connection: Connection) -> UnsafeMutableRawPointer {
    Unmanaged.passRetained(WeakConnection(connection)).toOpaque()
  }

  static func from(_ data: UnsafeMutableRawPointer?) -> Connection? {
    Unmanaged<WeakConnection>.fromOpaque(data!).takeUnretainedValue().connection
  }

  static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
    Unmanaged<WeakConnection>.fromOpaque(data!).release()
  }
}

/// A freshly opened, registered libdbus connection, handed from the loop thread to the actor.
private struct OpenedConnection: @unchecked Sendable {
  // Invariant: opened on the loop thread, then only carried to `connect`, which stores the
  // pointer in the new actor without calling libdbus; from then on it is used on the loop
  // thread only. It carries the one reference from the open, which the actor's `deinit` drops.
  let pointer: OpaquePointer
  let uniqueName: BusName

  private static let threadsReady: Bool = dbus_threads_init_default() != 0

  static func open(_ address: String) throws(DBusError) -> OpenedConnection {
    guard threadsReady else { throw MessageEncoder.outOfMemory }
    let error = CError()
    guard let pointer = dbus_connection_open_private(address, &error.value) else {
      throw error.swiftError(default: "cannot connect to \(address)")
    }
    // A lost bus must be an error the program handles, not an exit() inside libdbus.
    dbus_connection_set_exit_on_disconnect(pointer, 0)
    // Hello is a blocking round trip, acceptable here: the loop has no other work yet.
    guard dbus_bus_register(pointer, &error.value) != 0,
      let name = dbus_bus_get_unique_name(pointer)
    else {
      dbus_connection_close(pointer)
      dbus_connection_unref(pointer)
      throw error.swiftError(default: "the bus at \(address) did not accept the connection")
    }
    return OpenedConnection(pointer: pointer, uniqueName: BusName(unchecked: String(cString: name)))
  }
}

/// Waits for the reply of one pending call.
///
/// All of it runs on the loop thread: `await` from the actor, the notify from a dispatch. The
/// box is retained for libdbus as the notify's user data and released by libdbus's free
/// function when the call is freed. `call` is the reference `dbus_connection_send_with_reply`
/// gave us: whichever of the notify and the completed-at-once check takes the continuation
/// drops it, so it is dropped once, and stays valid until then.
private final class PendingReply: Sendable {
  typealias Continuation = CheckedContinuation<Result<Message, DBusError>, Never>
  private let continuation = Mutex<Continuation?>(nil)

  static func await(_ call: OpaquePointer, _ continuation: Continuation) {
    let box = PendingReply()
    box.continuation.withLock { $0 = continuation }
    let context = Unmanaged.passRetained(box).toOpaque()
    _ = dbus_pending_call_set_notify(
      call,
      { call, data in
        let box = Unmanaged<PendingReply>.fromOpaque(data!).takeUnretainedValue()
        box.complete(call!)
      }, context, { data in Unmanaged<PendingReply>.fromOpaque(data!).release() })
    // A call that failed at once (e.g. the connection dropped) is already complete, and libdbus
    // does not notify for it.
    if dbus_pending_call_get_completed(call) != 0 { box.complete(call) }
  }

  private func complete(_ call: OpaquePointer) {
    guard let continuation = continuation.withLock({ $0.take() }) else { return }
    defer { dbus_pending_call_unref(call) }
    guard let reply = dbus_pending_call_steal_reply(call) else {
      continuation.resume(returning: .failure(Connection.closedError))
      return
    }
    defer { dbus_message_unref(reply) }
    let message = MessageDecoder.decode(reply)
    if let error = message.error {
      continuation.resume(returning: .failure(error))
    } else {
      continuation.resume(returning: .success(message))
    }
  }

  deinit {
    // libdbus freed the call without completing it: answer the waiter anyway.
    continuation.withLock { $0.take() }?.resume(returning: .failure(Connection.closedError))
  }
}
