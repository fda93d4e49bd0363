// SPDX-License-Identifier: MIT
//
// A signal declared once with Swift types, as methods are (`Takes`): `Emits<ObjectPath>(
// interface, "ItemCreated", ["item"])` gives the introspection's description, the message a
// service sends, the match rule a client subscribes with, and the typed arguments it reads.

/// A signal carrying `Argument`, with its interface and argument names.
public struct Emits<each Argument: DBusRepresentable>: Sendable {
  public let interface: InterfaceName
  public let description: SignalDescription
  public var name: MemberName { description.name }

  /// Declares `name` on `interface`; the names are those introspection shows, one per type.
  public init(_ interface: InterfaceName, _ name: MemberName, _ names: [String] = []) {
    var types: [DBusType] = []
    for type in repeat (each Argument).self { types.append(type.dbusType) }
    precondition(types.count == names.count, "\(name): one name per argument")
    self.interface = interface
    description = SignalDescription(name, zip(names, types).map { ArgumentDescription($0, $1) })
  }

  /// The signal sent from `path` with `values`.
  @inlinable
  public func message(from path: ObjectPath, _ values: repeat each Argument) -> Message {
    .signal(path: path, interface: interface, member: name, body: encodeBody(repeat each values))
  }

  /// The rule that matches this signal (from `path` only, if given).
  public func rule(sender: BusName? = nil, path: ObjectPath? = nil) -> MatchRule {
    MatchRule(sender: sender, interface: interface, member: name, path: path)
  }

  /// A received signal's arguments, typed; one of another shape is an error.
  @inlinable
  public func arguments(of message: Message) throws(DBusError) -> (repeat each Argument) {
    var reader = BodyReader(body: message.body, member: name)
    return (repeat try reader.next((each Argument).self))
  }
}

extension MessageTransport {
  /// Sends `signal` from `path`.
  public func emit<each Argument: DBusRepresentable>(
    _ signal: Emits<repeat each Argument>, from path: ObjectPath, _ values: repeat each Argument
  ) async throws(DBusError) {
    try await send([signal.message(from: path, repeat each values)])
  }
}

// (`< >` with its space: `<>` does not parse, and swift-format would write it.)
// swift-format-ignore
/// A signal with no arguments: `BareSignal(interface, "walletListDirty")`.
public typealias BareSignal = Emits< >
