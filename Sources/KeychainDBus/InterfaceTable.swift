// SPDX-License-Identifier: MIT
//
// The handlers that serve one declared `Interface`: a typed Swift function per method (keyed by
// name and input signature, so overloads dispatch), a typed getter per readable property and a
// typed setter per writable one. Building the table checks it against the declaration: a
// declared member with no handler, or a handler for an undeclared one, stops the program where
// the table is built, before any call can reach it.

/// The handlers of one interface, for a `DBusInterface`'s `static let table`.
///
/// A class, built once: every call reads it through an existential, and a struct would be
/// copied (a dozen retains, and a generic metadata lookup) each time (measured: 5 % of a
/// SearchItems call's instructions).
public final class InterfaceTable<Target: Sendable>: @unchecked Sendable {
  // Invariant for @unchecked Sendable: the handlers, getters and setters are added only by
  // `init`'s build closure, before the table is shared; afterwards they are only read.
  public typealias Handler = @Sendable (Target, MethodRequest) async throws -> [DBusValue]
  public typealias Getter = @Sendable (Target, MethodRequest) async throws -> DBusValue
  public typealias Setter = @Sendable (Target, MethodRequest, DBusValue) async throws -> Void

  /// The declaration this table serves.
  public let interface: Interface
  /// `interface.description`, kept: introspection and every call read it.
  public let description: InterfaceDescription
  @usableFromInline var handlers: [MethodKey: Handler] = [:]
  /// Each method name's declarations with their handlers (overloads share a name), built once
  /// from `handlers`: a call resolves to its handler by one lookup of its name.
  private var overloads: [MemberName: [(method: MethodDescription, handler: Handler)]] = [:]
  @usableFromInline var getters: [String: Getter] = [:]
  @usableFromInline var setters: [String: Setter] = [:]
  let declaredErrors: [MethodKey: Set<ErrorName>]

  /// The handlers `build` adds for `interface`, which must be all of them.
  public init(_ interface: Interface, _ build: (InterfaceTable) -> Void) {
    self.interface = interface
    description = interface.description
    declaredErrors = interface.declaredErrors()
    build(self)
    let declared = Set(interface.methods.map { MethodKey($0.description) })
    let handled = Set(handlers.keys)
    precondition(
      declared == handled,
      "\(interface.name): methods without a handler \(declared.subtracting(handled)), "
        + "handlers without a declaration \(handled.subtracting(declared))")
    for method in description.methods {
      overloads[method.name, default: []].append((method, handlers[MethodKey(method)]!))
    }
    for property in interface.properties.map(\.description) {
      precondition(
        property.access.isReadable == (getters[property.name] != nil)
          && property.access.isWritable == (setters[property.name] != nil),
        "\(interface.name).\(property.name): getter and setter must match its access")
    }
    precondition(
      Set(getters.keys).union(setters.keys).isSubset(
        of: interface.properties.map(\.description.name)),
      "\(interface.name): an accessor for an undeclared property")
  }

  /// Answers `method` with `handler`: an unapplied method of `Target` taking the request
  /// and the typed arguments, returning the typed results. Inlinable, so that the handler's
  /// decoding and encoding are specialized for its types where the table is built.
  @inlinable
  public func on<each Input: DBusRepresentable, each Output: DBusRepresentable>(
    _ method: Takes<repeat each Input>.Returns<repeat each Output>,
    _ handler:
      @escaping @Sendable (Target) -> (MethodRequest, repeat each Input) async throws ->
      (repeat each Output)
  ) {
    method.requireResults()
    add(method.description) { target, request in
      let arguments = try method.decodeArguments(request.arguments)
      let results = try await handler(target)(request, repeat each arguments)
      return method.results(repeat each results)
    }
  }

  /// Answers `method`, which returns nothing, with `handler`, which returns `Void` (an empty
  /// result pack must not cross an `await`: see TypedMethod.swift).
  @inlinable
  public func on<each Input: DBusRepresentable>(
    _ method: Takes<repeat each Input>.ReturnsNothing,
    _ handler:
      @escaping @Sendable (Target) -> (MethodRequest, repeat each Input) async throws -> Void
  ) {
    add(method.description) { target, request in
      let arguments = try method.decodeArguments(request.arguments)
      try await handler(target)(request, repeat each arguments)
      return []
    }
  }

  /// Reads `property` with `getter`.
  @inlinable
  public func get<Value>(
    _ property: Property<Value>,
    _ getter: @escaping @Sendable (Target) -> (MethodRequest) async throws -> Value
  ) {
    getters[property.name] = { target, request in
      property.wire(try await getter(target)(request))
    }
  }

  /// Writes `property` with `setter`, which gets the value already typed.
  @inlinable
  public func set<Value>(
    _ property: Property<Value>,
    _ setter: @escaping @Sendable (Target) -> (MethodRequest, Value) async throws -> Void
  ) {
    setters[property.name] = { target, request, value in
      try await setter(target)(request, try Value(dbusValue: value))
    }
  }

  @usableFromInline
  func add(_ description: MethodDescription, _ handler: @escaping Handler) {
    let key = MethodKey(description)
    precondition(handlers[key] == nil, "\(interface.name).\(key) has two handlers")
    handlers[key] = handler
  }

  /// Whether the interface has a method named `member`.
  public func answers(_ member: MemberName) -> Bool { overloads[member] != nil }

  /// Runs the handler of the request's method, resolved once: its name's declarations, then
  /// the one whose inputs the arguments have. UnknownMethod for a name the interface lacks;
  /// InvalidArgs, worded as GDBus words it, when no declaration takes these arguments. An
  /// error the handler answers that its declaration does not list is reported to
  /// `undeclared` (and answered anyway).
  public func dispatch(
    _ target: Target, _ request: MethodRequest,
    undeclared: (_ error: ErrorName, _ method: MethodKey) -> Void = { _, _ in }
  ) async throws -> [DBusValue] {
    guard let candidates = overloads[request.member] else {
      throw DBusError(
        .unknownMethod, "No such method \(DBusError.curlyQuoted(request.member.rawValue))")
    }
    let body = request.message.body
    guard
      let (method, handler) = candidates.first(where: { candidate in
        body.count == candidate.method.inputs.count
          && zip(body, candidate.method.inputs).allSatisfy { $0.hasType($1.type) }
      })
    else {
      let got = body.map(\.type.signature).joined()
      let expected = candidates.map { DBusError.curlyQuoted("(\($0.method.inputSignature))") }
      throw DBusError(
        .invalidArgs,
        "Type of message, \(DBusError.curlyQuoted("(\(got))")), does not match expected type "
          + expected.joined(separator: " or "))
    }
    var matched = request
    matched.method = method
    do {
      return try await handler(target, matched)
    } catch {
      let name = (error as? DBusError)?.name ?? (error as? any DBusErrorConvertible)?.dbusError.name
      let key = MethodKey(method)
      if let name, let declared = declaredErrors[key], !declared.contains(name) {
        undeclared(name, key)
      }
      throw error
    }
  }

  /// Reads a declared, readable property.
  func get(_ name: String, _ target: Target, _ request: MethodRequest) async throws -> DBusValue {
    guard let getter = getters[name] else { throw DBusError.noSuchProperty(name) }
    return try await getter(target, request)
  }

  /// Writes a declared, writable property; `value` has its declared type.
  func set(_ name: String, _ target: Target, _ value: DBusValue, _ request: MethodRequest)
    async throws
  {
    guard let setter = setters[name] else { throw DBusError.notWritable(name) }
    try await setter(target, request, value)
  }
}
