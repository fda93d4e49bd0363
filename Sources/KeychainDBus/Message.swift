// SPDX-License-Identifier: MIT

/// A D-Bus message as a Swift value: header fields and a body of typed arguments.
///
/// Messages are built and read in Swift; only the connection's owner thread turns them into
/// libdbus messages, after checking every field and argument.
public struct Message: Sendable {
  /// The four message types of the specification.
  public enum Kind: Sendable, Hashable {
    case methodCall, methodReturn, error, signal
  }

  public var kind: Kind
  public var path: ObjectPath?
  public var interface: InterfaceName?
  public var member: MemberName?
  public var errorName: ErrorName?
  public var destination: BusName?
  /// The unique name of the connection that sent the message; filled in by the bus.
  public var sender: BusName?
  /// Assigned when the message is sent; 0 before.
  public var serial: UInt32 = 0
  /// For replies and errors: the serial of the call they answer.
  public var replySerial: UInt32 = 0
  /// For calls: the caller does not want a reply.
  public var noReplyExpected = false
  /// For calls: the bus may start the destination service (D-Bus activation).
  public var autoStart = true
  /// The arguments.
  public var body: [DBusValue]

  /// A message of `kind` with no header fields set.
  public init(kind: Kind, body: [DBusValue] = []) {
    self.kind = kind
    self.body = body
  }

  /// A method call.
  public static func methodCall(
    destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
    body: [DBusValue] = []
  ) -> Message {
    var m = Message(kind: .methodCall, body: body)
    m.destination = destination
    m.path = path
    m.interface = interface
    m.member = member
    return m
  }

  /// A signal emitted from `path`.
  public static func signal(
    path: ObjectPath, interface: InterfaceName, member: MemberName, body: [DBusValue] = []
  ) -> Message {
    var m = Message(kind: .signal, body: body)
    m.path = path
    m.interface = interface
    m.member = member
    return m
  }

  /// A method return answering this call.
  public func makeReply(_ body: [DBusValue] = []) -> Message {
    var m = Message(kind: .methodReturn, body: body)
    m.destination = sender
    m.replySerial = serial
    return m
  }

  /// An error answering this call.
  public func makeErrorReply(_ error: DBusError) -> Message {
    var m = Message(kind: .error, body: [.string(error.message)])
    m.destination = sender
    m.replySerial = serial
    m.errorName = error.name
    return m
  }

  /// The signature of the body; empty if the body breaks the limits (the encoder refuses it).
  public var signature: Signature {
    (try? Signature(body.map(\.type))) ?? .empty
  }

  /// For an error message: the error it carries.
  public var error: DBusError? {
    guard kind == .error else { return nil }
    return DBusError(errorName ?? .failed, body.first?.string ?? "")
  }

  /// Checks that the header fields the specification requires for this kind are present.
  func checkHeader() throws(DBusError) {
    let complete =
      switch kind {
      case .methodCall: path != nil && member != nil
      case .signal: path != nil && interface != nil && member != nil
      case .methodReturn: replySerial != 0
      case .error: replySerial != 0 && errorName != nil
      }
    guard complete else {
      throw DBusError(.invalidArgs, "message header incomplete for a \(kind)")
    }
  }
}
