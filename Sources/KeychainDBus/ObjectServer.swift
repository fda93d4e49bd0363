// SPDX-License-Identifier: MIT
//
// A tree of exported objects served on a connection. The tree says which interfaces live at a
// path; the server runs each call through its filters (work around every call), checks it
// against the interface's declaration, picks the overload its arguments match, answers
// Properties and Introspectable for every object, and turns any failure into a named D-Bus
// error: its own, or the one a `DBusErrorConvertible` error renders, or a generic one with the
// details in the log. (libdbus answers Peer.)
//
// Errors are named and worded as GDBus's object skeletons word them (and gnome-keyring, a GDBus
// program, for a path with no object): the Secret Service's clients are GDBus programs, and
// libsecret tells failures apart by name (it ignores UnknownMethod when dismissing a prompt).

import Logging

/// One D-Bus interface of an exported object: a declared `Interface` and the handlers of its
/// methods and properties (`table`). Everything else comes from the table.
public protocol DBusInterface: Sendable {
  /// The interface's declaration and handlers.
  static var table: InterfaceTable<Self> { get }
  /// Every readable property, for `GetAll`. The default reads them one by one; implement it
  /// when one lookup can answer all of them.
  func allProperties(_ request: MethodRequest) async throws -> [String: DBusValue]
}

extension DBusInterface {
  /// The declaration calls are checked against and introspection prints.
  public var interfaceDescription: InterfaceDescription { Self.table.description }

  /// Runs the method the request names (by name and signature); an error its declaration
  /// does not list goes to `undeclared` as well as to the caller.
  public func call(
    _ request: MethodRequest,
    undeclared: (_ error: ErrorName, _ method: MethodKey) -> Void = { _, _ in }
  ) async throws -> [DBusValue] {
    try await Self.table.dispatch(self, request, undeclared: undeclared)
  }

  /// Whether the interface has a method named `member`.
  public func answers(_ member: MemberName) -> Bool { Self.table.answers(member) }

  /// Reads a declared, readable property.
  public func getProperty(_ name: String, _ request: MethodRequest) async throws -> DBusValue {
    try await Self.table.get(name, self, request)
  }

  /// Writes a declared, writable property; `value` already has the declared type.
  public func setProperty(_ name: String, to value: DBusValue, _ request: MethodRequest)
    async throws
  {
    try await Self.table.set(name, self, value, request)
  }

  public func allProperties(_ request: MethodRequest) async throws -> [String: DBusValue] {
    var values: [String: DBusValue] = [:]
    for property in interfaceDescription.properties where property.access.isReadable {
      values[property.name] = try await getProperty(property.name, request)
    }
    return values
  }
}

/// Serves an `ObjectTree` on a connection; register it with `Connection.register(_:at:)`.
public final class ObjectServer: MethodCallHandler {
  private let tree: any ObjectTree
  private let filters: [any CallFilter]
  private let logger: Logger
  public let maximumByteArray: Int
  /// Put before each caller's unique name (`MethodRequest.caller`).
  private let callerPrefix: String

  /// A server for `tree`; unexpected errors are logged to `logger` (never with arguments).
  /// - Parameters:
  ///   - filters: run around every call, the first outermost (see `CallFilter`).
  ///   - maximumByteArray: calls carrying a longer byte array are refused before it is copied
  ///     (see `MethodCallHandler.maximumByteArray`).
  ///   - callerPrefix: put before each caller's unique name, for a server on a second bus
  ///     beside the first: `:1.5` there is another program than `:1.5` here, and what a caller
  ///     holds is kept under its name.
  public init(
    _ tree: any ObjectTree, filters: [any CallFilter] = [],
    logger: Logger = Logger(label: "keychain.dbus.server"), maximumByteArray: Int = .max,
    callerPrefix: String = ""
  ) {
    self.tree = tree
    self.callerPrefix = callerPrefix
    self.filters = filters
    self.logger = logger
    self.maximumByteArray = maximumByteArray
  }

  public func handle(_ call: Message, responder: Responder) {
    // Runs on the connection's thread until the first suspension, so an implementation that
    // answers without waiting is answered without a thread hop.
    Task.immediate { await self.respond(to: call, responder) }
  }

  // Accessed only through the connection that delivered the call; see `handle`.
  private nonisolated(nonsending) func respond(to call: Message, _ responder: Responder) async {
    let request = MethodRequest(
      message: call, connection: responder.transport, callerPrefix: callerPrefix)
    // Once answered: the work waiting for the answer runs. Both kinds of work often capture
    // the request that holds them (ChangeSignals keeps it): taking them out on every path breaks
    // that cycle, so the request and its message are freed. Without it every CreateItem and
    // Delete kept its call for good, 2.4 KB an item.
    defer {
      _ = request.context.takeActions()
      request.context.runAnswered()
    }
    do {
      responder.reply(try await filtered(request, from: 0))
      // The reply is already sent or queued on the connection's thread, ahead of anything these
      // actions send through the connection.
      let actions = request.context.takeActions()
      if !actions.isEmpty {
        request.connection.afterReply { for action in actions { await action() } }
      }
    } catch let error as DBusError {
      responder.fail(error)
    } catch let error as any DBusErrorConvertible {
      responder.fail(error.dbusError)
    } catch {
      // The boundary: details go to the log, the caller gets a generic error.
      logger.error(
        "\(call.interface?.rawValue ?? "").\(call.member?.rawValue ?? "") failed: \(error)")
      responder.fail(DBusError(.failed, "internal error in the service"))
    }
  }

  /// The call through the filters from `index` on, then dispatched.
  private nonisolated(nonsending) func filtered(_ request: MethodRequest, from index: Int)
    async throws -> [DBusValue]
  {
    guard index < filters.count else { return try await dispatch(request) }
    return try await filters[index].filter(request) { request in
      try await self.filtered(request, from: index + 1)
    }
  }

  private nonisolated(nonsending) func dispatch(_ request: MethodRequest) async throws
    -> [DBusValue]
  {
    guard let target = try await self.target(of: request) else {
      throw DBusError(
        .unknownMethod, "No such method \(DBusError.curlyQuoted(request.member.rawValue))")
    }
    // A declaration is what clients and tests read as the contract: an error a method
    // answered that its declaration does not list is logged (and sent anyway).
    return try await target.call(request) { name, method in
      logger.error(
        "\(target.interfaceDescription.name).\(method.member) answered \(name), which its declaration does not list"
      )
    }
  }

  /// The interface a call is for: Introspectable on any path, else one of the object's (the
  /// one named, or the first with the method: the specification makes the interface
  /// optional), or Properties over them; nil when none has the method.
  private nonisolated(nonsending) func target(of request: MethodRequest) async throws
    -> (any DBusInterface)?
  {
    let call = request.message
    if call.interface == .introspectable || (call.interface == nil && call.member == "Introspect") {
      return IntrospectableInterface(tree: tree)
    }
    guard let interfaces = try await tree.interfaces(at: request.path) else {
      throw DBusError.noObject(request.path)
    }
    guard let name = call.interface else {
      return interfaces.first { $0.answers(request.member) }
        ?? PropertiesInterface(interfaces: interfaces)
    }
    if let found = interfaces.first(where: { $0.interfaceDescription.name == name }) {
      return found
    }
    guard name == .properties else {
      throw DBusError(
        .unknownMethod,
        "No such interface \(DBusError.curlyQuoted(name.rawValue)) on object at path \(request.path)"
      )
    }
    return PropertiesInterface(interfaces: interfaces)
  }
}
