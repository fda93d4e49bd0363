// SPDX-License-Identifier: MIT
//
// KeychainDBus's typed dispatch as it was at b639d84, reduced: a method declared with its
// argument and result types as parameter packs, and a table whose inlinable `on` wraps a typed
// async handler in a closure over plain values.

/// A value on the wire.
public enum Value: Sendable {
  case string(String)
  case bytes([UInt8])
  case structure([Value])
}

/// A Swift type with a wire form.
public protocol Wire: Sendable {
  var value: Value { get }
  init(value: Value) throws
}

/// A value of the wrong shape.
public struct WrongShape: Error {
  public init() {}
}

/// A method's argument types; `Returns` adds its result types.
public struct Takes<each Input: Wire> {
  public struct Returns<each Output: Wire>: Sendable {
    public let name: String
    public init(_ name: String) { self.name = name }

    @inlinable
    public func decodeArguments(_ body: [Value]) throws -> (repeat each Input) {
      var index = 0
      func next<T: Wire>(_ type: T.Type) throws -> T {
        defer { index += 1 }
        return try T(value: body[index])
      }
      return (repeat try next((each Input).self))
    }

    @inlinable
    public func results(_ values: repeat each Output) -> [Value] {
      var body: [Value] = []
      for value in repeat each values { body.append(value.value) }
      return body
    }
  }
}

extension Takes {
  // (`< >` with its space: `<>` does not parse, and swift-format would write it.)
  // swift-format-ignore
  /// A method returning nothing.
  public typealias ReturnsNothing = Returns< >
}

/// Handlers by method name.
public struct MethodTable<Target: Sendable>: Sendable {
  public typealias Handler = @Sendable (Target, [Value]) async throws -> [Value]
  @usableFromInline var handlers: [String: Handler] = [:]

  public init(_ build: (inout MethodTable) -> Void) { build(&self) }

  /// The miscompiled shape: specialised for `Takes<Secret>.Returns< >`, the empty `results`
  /// pack is a zero-size slot in the closure's async frame that LLVM places on the live decoded
  /// argument; its `lifetime.start` there makes the argument's first word undefined, and the copy
  /// passed to the handler loses it.
  @inlinable
  public mutating func on<each Input: Wire, each Output: Wire>(
    _ method: Takes<repeat each Input>.Returns<repeat each Output>,
    _ handler:
      @escaping @Sendable (Target) -> (repeat each Input) async throws -> (repeat each Output)
  ) {
    handlers[method.name] = { target, body in
      let arguments = try method.decodeArguments(body)
      let results = try await handler(target)(repeat each arguments)
      return method.results(repeat each results)
    }
  }

  /// The shape keychaind uses instead (`MethodTable.on` for `ReturnsNothing`): the handler
  /// returns `Void`, so no empty pack crosses the `await`. Correct at -O.
  @inlinable
  public mutating func on<each Input: Wire>(
    _ method: Takes<repeat each Input>.ReturnsNothing,
    returningVoid handler: @escaping @Sendable (Target) -> (repeat each Input) async throws -> Void
  ) {
    handlers[method.name] = { target, body in
      let arguments = try method.decodeArguments(body)
      try await handler(target)(repeat each arguments)
      return []
    }
  }

  public func dispatch(_ target: Target, _ name: String, _ body: [Value]) async throws -> [Value] {
    guard let handler = handlers[name] else { throw WrongShape() }
    return try await handler(target, body)
  }
}
