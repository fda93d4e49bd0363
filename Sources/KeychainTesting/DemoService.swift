// SPDX-License-Identifier: MIT
//
// A small example service on the object server: the D-Bus layer's tests, the gdbus/busctl
// interop checks and the round-trip benchmark all talk to it.

import KeychainDBus
import Synchronization

/// `org.example.Demo` at `/org/example/Demo` (and `/org/example/Demo/child`).
public final class DemoService: ObjectTree, DBusInterface {
  public static let name: BusName = "org.example.Demo"
  public static let path: ObjectPath = "/org/example/Demo"
  public static let interface: InterfaceName = "org.example.Demo"

  private let greeting = Mutex("Hello")
  /// `Wait` calls stay pending until `Release`: a deferred reply that depends on no timing.
  private let gate = Mutex<(released: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []))

  public init() {}

  /// Registers the service on `connection`, then asks for its well-known name.
  public func publish(on connection: Connection, options: NameRequestOptions = [.doNotQueue])
    async throws -> NameRequestResult
  {
    try await connection.register(ObjectServer(self), at: Self.path)
    return try await connection.requestName(Self.name, options: options)
  }

  /// `org.example.Demo`'s members, declared with their types.
  public enum Members {
    public static let hello = Takes<String>.Returns<String>(
      DemoService.interface, "Hello", ["name"], ["reply"], errors: [])
    public static let echo = Takes<DBusValue>.Returns<DBusValue>(
      DemoService.interface, "Echo", ["value"], ["value"], errors: [])
    public static let wait = NoArguments.Returns<String>(
      DemoService.interface, "Wait", [], ["reply"], errors: [])
    public static let release = NoArguments.ReturnsNothing(
      DemoService.interface, "Release", errors: [])
    public static let pendingWaits = NoArguments.Returns<UInt32>(
      DemoService.interface, "PendingWaits", [], ["count"], errors: [])
    /// Answers the error it is asked for: any name.
    public static let fail = Takes<String>.ReturnsNothing(
      DemoService.interface, "Fail", ["error_name"], errors: [])
    public static let emit = Takes<String>.ReturnsNothing(
      DemoService.interface, "Emit", ["text"], errors: [])
    public static let caller = NoArguments.Returns<String>(
      DemoService.interface, "Caller", [], ["unique_name"], errors: [])
    public static let attributes = Takes<[String: String]>.Returns<UInt32>(
      DemoService.interface, "Attributes", ["attributes"], ["count"], errors: [])
    public static let greeting = Property<String>(DemoService.interface, "Greeting", .readwrite)
    public static let version = Property<UInt32>(DemoService.interface, "Version")
    public static let greeted = Emits<String>(DemoService.interface, "Greeted", ["text"])

    public static let interface = Interface(
      DemoService.interface,
      methods: [hello, echo, wait, release, pendingWaits, fail, emit, caller, attributes],
      properties: [greeting, version], signals: [greeted])
  }

  public static let table = InterfaceTable<DemoService>(Members.interface) { table in
    table.on(Members.hello, hello)
    table.on(Members.echo, echo)
    table.on(Members.wait, wait)
    table.on(Members.release, release)
    table.on(Members.pendingWaits, pendingWaits)
    table.on(Members.fail, fail)
    table.on(Members.emit, emit)
    table.on(Members.caller, caller)
    table.on(Members.attributes, attributes)
    table.get(Members.greeting, greeting)
    table.set(Members.greeting, setGreeting)
    table.get(Members.version) { _ in { _ in 1 } }
  }

  public nonisolated(nonsending) func interfaces(at path: ObjectPath) async throws
    -> [any DBusInterface]?
  {
    path == Self.path || path.rawValue == Self.path.rawValue + "/child" ? [self] : nil
  }

  public nonisolated(nonsending) func childNodes(of path: ObjectPath) async throws -> [String] {
    switch path.rawValue {
    case "/": ["org"]
    case "/org": ["example"]
    case "/org/example": ["Demo"]
    case Self.path.rawValue: ["child"]
    default: []
    }
  }

  func hello(_ request: MethodRequest, name: String) async throws -> String {
    "\(greeting.withLock { $0 }), \(name)!"
  }

  func echo(_ request: MethodRequest, value: DBusValue) async throws -> DBusValue { value }

  func wait(_ request: MethodRequest) async throws -> String {
    await withCheckedContinuation { continuation in
      let resumeNow = gate.withLock { state in
        if !state.released { state.waiters.append(continuation) }
        return state.released
      }
      if resumeNow { continuation.resume() }
    }
    return "released"
  }

  func release(_ request: MethodRequest) async throws {
    let waiters = gate.withLock { state in
      state.released = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  func pendingWaits(_ request: MethodRequest) async throws -> UInt32 {
    UInt32(gate.withLock { $0.waiters.count })
  }

  func fail(_ request: MethodRequest, errorName: String) async throws {
    throw DBusError(try ErrorName(errorName), "failed on request")
  }

  func emit(_ request: MethodRequest, text: String) async throws {
    try await request.connection.emit(Members.greeted, from: request.path, text)
  }

  func caller(_ request: MethodRequest) async throws -> String { request.caller.rawValue }

  func attributes(_ request: MethodRequest, attributes: [String: String]) async throws -> UInt32 {
    UInt32(attributes.count)
  }

  func greeting(_ request: MethodRequest) async throws -> String { greeting.withLock { $0 } }

  func setGreeting(_ request: MethodRequest, text: String) async throws {
    guard !text.isEmpty else { throw DBusError(.invalidArgs, "Greeting must not be empty") }
    greeting.withLock { $0 = text }
    try await request.connection.emitPropertiesChanged(
      at: request.path, interface: Self.interface, changed: [Members.greeting.name: .string(text)])
  }
}

/// A private bus with the demo service published on it and a client connection: what the
/// D-Bus tests and the round-trip benchmark start from.
public final class DemoBus: Sendable {
  public let bus: PrivateBus
  /// The connection serving `DemoService`.
  public let server: Connection
  /// A separate client connection.
  public let client: Connection

  public init() async throws {
    bus = try PrivateBus()
    server = try await bus.connect()
    client = try await bus.connect()
    let result = try await DemoService().publish(on: server)
    guard result == .primaryOwner else { throw TestingError("demo service name: \(result)") }
  }
}
