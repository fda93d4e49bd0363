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

  public let interfaceDescription = InterfaceDescription(
    DemoService.interface,
    methods: [
      MethodDescription(
        "Hello", inputs: [.init("name", .string)], outputs: [.init("reply", .string)]),
      MethodDescription(
        "Echo", inputs: [.init("value", .variant)], outputs: [.init("value", .variant)]),
      MethodDescription("Wait", outputs: [.init("reply", .string)]),
      MethodDescription("Release"),
      MethodDescription("PendingWaits", outputs: [.init("count", .uint32)]),
      MethodDescription("Fail", inputs: [.init("error_name", .string)]),
      MethodDescription("Emit", inputs: [.init("text", .string)]),
      MethodDescription("Caller", outputs: [.init("unique_name", .string)]),
      MethodDescription(
        "Attributes", inputs: [.init("attributes", .dictionary(key: .string, value: .string))],
        outputs: [.init("count", .uint32)]),
    ],
    properties: [
      PropertyDescription("Greeting", .string, .readwrite),
      PropertyDescription("Version", .uint32),
    ],
    signals: [SignalDescription("Greeted", [.init("text", .string)])])

  public func interfaces(at path: ObjectPath) async throws -> [any DBusInterface]? {
    path == Self.path || path.rawValue == Self.path.rawValue + "/child" ? [self] : nil
  }

  public func childNodes(of path: ObjectPath) async throws -> [String] {
    switch path.rawValue {
    case "/": ["org"]
    case "/org": ["example"]
    case "/org/example": ["Demo"]
    case Self.path.rawValue: ["child"]
    default: []
    }
  }

  public func call(_ request: MethodRequest) async throws -> [DBusValue] {
    switch request.member.rawValue {
    case "Hello":
      let name: String = try request.argument(0)
      return [.string("\(greeting.withLock { $0 }), \(name)!")]
    case "Echo":
      return [.variant(try request.argument(0, as: DBusValue.self))]
    case "Wait":
      await withCheckedContinuation { continuation in
        let resumeNow = gate.withLock { state in
          if !state.released { state.waiters.append(continuation) }
          return state.released
        }
        if resumeNow { continuation.resume() }
      }
      return [.string("released")]
    case "Release":
      let waiters = gate.withLock { state in
        state.released = true
        defer { state.waiters = [] }
        return state.waiters
      }
      for waiter in waiters { waiter.resume() }
      return []
    case "PendingWaits":
      return [.uint32(UInt32(gate.withLock { $0.waiters.count }))]
    case "Fail":
      throw DBusError(try ErrorName(try request.argument(0, as: String.self)), "failed on request")
    case "Emit":
      let text: String = try request.argument(0)
      try await request.connection.emit(
        Self.interface, "Greeted", from: request.path, [.string(text)])
      return []
    case "Caller":
      return [.string(request.caller.rawValue)]
    default:  // Attributes
      return [.uint32(UInt32(try request.argument(0, as: [String: String].self).count))]
    }
  }

  public func getProperty(_ name: String, _ request: MethodRequest) async throws -> DBusValue {
    name == "Greeting" ? .string(greeting.withLock { $0 }) : .uint32(1)
  }

  public func setProperty(_ name: String, to value: DBusValue, _ request: MethodRequest)
    async throws
  {
    guard let text = value.string, !text.isEmpty else {
      throw DBusError(.invalidArgs, "Greeting must not be empty")
    }
    greeting.withLock { $0 = text }
    try await request.connection.emitPropertiesChanged(
      at: request.path, interface: Self.interface, changed: ["Greeting": value])
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
