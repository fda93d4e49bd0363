// SPDX-License-Identifier: MIT
//
// A subtree of exported objects. The tree says which interfaces live at a path; the server
// checks each call against the interface's declaration, answers Properties and Introspectable
// for every object, and turns any failure into a named D-Bus error: its own, or the one a
// `DBusErrorConvertible` error renders, or a generic one with the details in the log.
// (libdbus answers Peer.)
//
// Errors are named and worded as GDBus's object skeletons word them (and gnome-keyring, a GDBus
// program, for a path with no object): the Secret Service's clients are GDBus programs, and
// libsecret tells failures apart by name (it ignores UnknownMethod when dismissing a prompt).

import Logging
import Synchronization

/// One method call, as an interface implementation sees it.
public struct MethodRequest: Sendable {
  /// The whole call, header and arguments.
  public let message: Message
  /// Where the call came from: the bus connection, or an in-memory transport in tests. For
  /// signals and the bus's name owners.
  public let connection: any MessageTransport
  let afterReplyActions = AfterReply()

  /// Runs `action` once the reply to this call has been sent: for signals that must not
  /// overtake the reply, such as a prompt's `Completed` after `Prompt()` returned.
  public func afterReply(_ action: @escaping @Sendable () async -> Void) {
    afterReplyActions.actions.withLock { $0.append(action) }
  }

  /// The object path the call was sent to.
  public var path: ObjectPath { message.path ?? .root }
  /// The method's name.
  public var member: MemberName { message.member ?? "Unknown" }
  /// The unique bus name of the caller.
  public var caller: BusName { message.sender ?? BusName(unchecked: ":0.0") }
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

/// One D-Bus interface of an exported object.
public protocol DBusInterface: Sendable {
  /// The interface's declaration; calls and property types are checked against it.
  var interfaceDescription: InterfaceDescription { get }
  /// Runs a declared method; returns values matching its declared outputs.
  func call(_ request: MethodRequest) async throws -> [DBusValue]
  /// Reads a declared, readable property.
  func getProperty(_ name: String, _ request: MethodRequest) async throws -> DBusValue
  /// Writes a declared, writable property; `value` already has the declared type.
  func setProperty(_ name: String, to value: DBusValue, _ request: MethodRequest) async throws
  /// Every readable property, for `GetAll`. The default reads them one by one; implement it
  /// when one lookup can answer all of them.
  func allProperties(_ request: MethodRequest) async throws -> [String: DBusValue]
  /// The error names `member` is declared to answer; nil when the interface declares none
  /// (a hand-written one). The default is nil.
  func declaredErrors(of member: MemberName) -> Set<ErrorName>?
}

/// An interface whose methods are declared with their types and errors (`Takes…Returns`) and
/// answered through a `MethodTable`: `call` and `declaredErrors` come from the table.
public protocol DeclaredInterface: DBusInterface {
  /// The interface's methods and their handlers.
  static var methods: MethodTable<Self> { get }
}

extension DeclaredInterface {
  public func call(_ request: MethodRequest) async throws -> [DBusValue] {
    try await Self.methods.dispatch(self, request)
  }

  public func declaredErrors(of member: MemberName) -> Set<ErrorName>? {
    Self.methods.errors(of: member)
  }
}

extension DBusInterface {
  public func declaredErrors(of member: MemberName) -> Set<ErrorName>? { nil }

  public func allProperties(_ request: MethodRequest) async throws -> [String: DBusValue] {
    var values: [String: DBusValue] = [:]
    for property in interfaceDescription.properties where property.access.isReadable {
      values[property.name] = try await getProperty(property.name, request)
    }
    return values
  }

  public func getProperty(_ name: String, _ request: MethodRequest) async throws -> DBusValue {
    throw DBusError.noSuchProperty(name)
  }
  public func setProperty(_ name: String, to value: DBusValue, _ request: MethodRequest)
    async throws
  {
    throw DBusError.notWritable(name)
  }
}

/// Which objects exist under a subtree, and what they implement.
public protocol ObjectTree: Sendable {
  /// The interfaces of the object at `path`, or nil when there is no object there.
  func interfaces(at path: ObjectPath) async throws -> [any DBusInterface]?
  /// The names of the nodes directly below `path`, for introspection.
  func childNodes(of path: ObjectPath) async throws -> [String]
}

/// Serves an `ObjectTree` on a connection; register it with `Connection.register(_:at:)`.
public final class ObjectServer: MethodCallHandler {
  private let tree: any ObjectTree
  private let logger: Logger
  public let maximumByteArray: Int

  /// A server for `tree`; unexpected errors are logged to `logger` (never with arguments).
  /// - Parameter maximumByteArray: calls carrying a longer byte array are refused before it is
  ///   copied (see `MethodCallHandler.maximumByteArray`).
  public init(
    _ tree: any ObjectTree, logger: Logger = Logger(label: "keychain.dbus.server"),
    maximumByteArray: Int = .max
  ) {
    self.tree = tree
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
    let request = MethodRequest(message: call, connection: responder.transport)
    // Actions often capture the request that holds them (ChangeSignals keeps it): taking them
    // out on every path breaks that cycle, so the request and its message are freed. Without
    // it every CreateItem and Delete kept its call for good, 2.4 KB an item.
    defer { _ = request.afterReplyActions.take() }
    do {
      responder.reply(try await dispatch(request))
      // The reply is already sent or queued on the connection's thread, ahead of anything these
      // actions send through the connection.
      let actions = request.afterReplyActions.take()
      if !actions.isEmpty {
        Task { for action in actions { await action() } }
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

  private nonisolated(nonsending) func dispatch(_ request: MethodRequest) async throws
    -> [DBusValue]
  {
    let call = request.message
    let path = request.path
    if call.interface == .introspectable || (call.interface == nil && call.member == "Introspect") {
      try ObjectServer.checkArguments(
        call, InterfaceDescription.introspectable.method("Introspect")!)
      return [.string(try await introspect(path))]
    }
    guard let interfaces = try await tree.interfaces(at: path) else {
      throw DBusError.noObject(path)
    }
    if call.interface == .properties {
      return try await PropertiesHandler(interfaces: interfaces).handle(request)
    }
    let target: (any DBusInterface)?
    if let name = call.interface {
      guard let found = interfaces.first(where: { $0.interfaceDescription.name == name }) else {
        throw DBusError(
          .unknownMethod,
          "No such interface \(DBusError.curlyQuoted(name.rawValue)) on object at path \(path)")
      }
      target = found
    } else {
      // The D-Bus specification makes the interface optional: the first one with the method.
      target = interfaces.first { $0.interfaceDescription.method(request.member) != nil }
    }
    guard let target, let method = target.interfaceDescription.method(request.member) else {
      throw DBusError(
        .unknownMethod, "No such method \(DBusError.curlyQuoted(request.member.rawValue))")
    }
    try ObjectServer.checkArguments(call, method)
    let result: [DBusValue]
    do {
      result = try await target.call(request)
    } catch {
      checkDeclared(error, of: target, method.name)
      throw error
    }
    // A declared interface's results are typed: they cannot differ from its declaration.
    if target is any DeclaredInterface { return result }
    let signature = result.map(\.type.signature).joined()
    guard signature == method.outputSignature else {
      logger.error(
        "\(method.name) returned (\(signature)), declared (\(method.outputSignature))")
      throw DBusError(.failed, "internal error in the service")
    }
    return result
  }

  /// Logs an error a declared method answered that its declaration does not list: the
  /// declaration is what clients and tests read as the contract. (The error is sent anyway.)
  private func checkDeclared(_ error: any Error, of target: any DBusInterface, _ member: MemberName)
  {
    let name = (error as? DBusError)?.name ?? (error as? any DBusErrorConvertible)?.dbusError.name
    guard let name, let declared = target.declaredErrors(of: member), !declared.contains(name)
    else { return }
    logger.error(
      "\(target.interfaceDescription.name).\(member) answered \(name), which its declaration does not list"
    )
  }

  static func checkArguments(_ call: Message, _ method: MethodDescription) throws(DBusError) {
    let body = call.body
    guard
      body.count != method.inputs.count
        || !zip(body, method.inputs).allSatisfy({ $0.hasType($1.type) })
    else { return }
    let got = body.map(\.type.signature).joined()
    guard got == method.inputSignature else {
      throw DBusError(
        .invalidArgs,
        "Type of message, \(DBusError.curlyQuoted("(\(got))")), does not match expected type "
          + DBusError.curlyQuoted("(\(method.inputSignature))"))
    }
  }

  private nonisolated(nonsending) func introspect(_ path: ObjectPath) async throws -> String {
    let children = try await tree.childNodes(of: path)
    guard let interfaces = try await tree.interfaces(at: path) else {
      // A path with no object introspects as an empty node, as GDBus answers it.
      return IntrospectionXML.document(
        interfaces: children.isEmpty ? [] : [.introspectable], children: children)
    }
    let standard: [InterfaceDescription] = [.peer, .introspectable, .properties]
    return IntrospectionXML.document(
      interfaces: standard + interfaces.map(\.interfaceDescription), children: children)
  }
}

/// Work a handler asked to run after its reply.
final class AfterReply: Sendable {
  let actions = Mutex<[@Sendable () async -> Void]>([])

  /// The actions so far, leaving none.
  func take() -> [@Sendable () async -> Void] {
    actions.withLock { actions in
      defer { actions = [] }
      return actions
    }
  }
}
