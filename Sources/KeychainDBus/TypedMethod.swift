// SPDX-License-Identifier: MIT
//
// A method declared once, with Swift types and the errors it answers:
// `Takes<[String: String]>.Returns<[ObjectPath], [ObjectPath]>("SearchItems", ["attributes"],
// ["unlocked", "locked"], errors: [])`. The declaration gives the introspection's description,
// decodes and encodes arguments and results on both sides, and, through `InterfaceTable`, routes
// a call to a handler that is a typed Swift function; an error the declaration does not list is
// logged by the object server. (Two nested types because a generic type may declare one
// parameter pack only.)
//
// A method that returns nothing has handlers and calls of its own, returning `Void`: an empty
// result pack never crosses an `await`. Swift 6.3.1 at -O miscompiles that shape once `on` is
// specialised (the zero-size result slot lands on a live argument in the async frame, and the
// handler gets a broken copy); `Tests/Reproducers/EmptyPackAwait` shows it in 60 lines. The
// preconditions below keep anyone from declaring their way back into it.

/// The argument types of a method; see `Returns`.
public struct Takes<each Input: DBusRepresentable> {
  /// A method taking `Input` and returning `Output`, with its interface and argument names.
  public struct Returns<each Output: DBusRepresentable>: Sendable {
    public let interface: InterfaceName
    public let description: MethodDescription
    /// The errors the method answers besides `ErrorName.everyMethod`.
    public let errors: Set<ErrorName>
    public var name: MemberName { description.name }

    /// Declares `name` on `interface`; the names are those introspection shows, one per type.
    /// `errors` are the error names the method answers besides those of every method.
    public init(
      _ interface: InterfaceName, _ name: MemberName, _ inputNames: [String] = [],
      _ outputNames: [String] = [], errors: Set<ErrorName>
    ) {
      var inputs: [DBusType] = []
      for type in repeat (each Input).self { inputs.append(type.dbusType) }
      var outputs: [DBusType] = []
      for type in repeat (each Output).self { outputs.append(type.dbusType) }
      precondition(
        inputs.count == inputNames.count && outputs.count == outputNames.count,
        "\(name): one name per argument and per result")
      self.interface = interface
      self.errors = errors
      description = MethodDescription(
        name, inputs: zip(inputNames, inputs).map { ArgumentDescription($0, $1) },
        outputs: zip(outputNames, outputs).map { ArgumentDescription($0, $1) })
    }

    /// A call's body.
    @inlinable
    public func arguments(_ values: repeat each Input) -> [DBusValue] {
      encodeBody(repeat each values)
    }

    /// A call's arguments, typed (the server has checked the signature).
    @inlinable
    public func decodeArguments(_ body: [DBusValue]) throws(DBusError) -> (repeat each Input) {
      var reader = BodyReader(body: body, member: name)
      return (repeat try reader.next((each Input).self))
    }

    /// A reply's body.
    @inlinable
    public func results(_ values: repeat each Output) -> [DBusValue] {
      encodeBody(repeat each values)
    }

    /// A reply's results, typed; a reply of another shape is an error. Only for a method that
    /// returns something (a call of one that returns nothing goes through its own overload).
    @inlinable
    public func decodeResults(_ body: [DBusValue]) throws(DBusError) -> (repeat each Output) {
      requireResults()
      var reader = BodyReader(body: body, member: name)
      return (repeat try reader.next((each Output).self))
    }

    /// Traps for a method with no results: those are handled and called through the overloads
    /// that take `ReturnsNothing` and return `Void` (see the top of this file).
    @inlinable
    func requireResults() {
      precondition(
        !description.outputs.isEmpty,
        "\(name) returns nothing: use the ReturnsNothing overload (an empty result pack must "
          + "not cross an await)")
    }
  }
}

/// A message body of `values`, in order.
@inlinable
func encodeBody<each Value: DBusRepresentable>(_ values: repeat each Value) -> [DBusValue] {
  var body: [DBusValue] = []
  for value in repeat each values { body.append(value.dbusValue) }
  return body
}

/// Values read off a body one after another.
@usableFromInline
struct BodyReader {
  @usableFromInline let body: [DBusValue]
  @usableFromInline let member: MemberName
  @usableFromInline var index = 0

  @inlinable
  init(body: [DBusValue], member: MemberName) {
    self.body = body
    self.member = member
  }

  @inlinable
  mutating func next<T: DBusRepresentable>(_ type: T.Type) throws(DBusError) -> T {
    guard index < body.count else {
      throw DBusError(.invalidArgs, "\(member) has no value \(index)")
    }
    defer { index += 1 }
    return try T(dbusValue: body[index])
  }
}

// (`< >` with its space: `<>` does not parse, and swift-format would write it.)
// swift-format-ignore
/// A method taking no arguments: `NoArguments.Returns<ObjectPath>(…)`.
public typealias NoArguments = Takes< >

extension Takes {
  // swift-format-ignore
  /// A method returning nothing: `Takes<String>.ReturnsNothing(…)`.
  public typealias ReturnsNothing = Returns< >
}
