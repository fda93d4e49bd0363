// SPDX-License-Identifier: MIT

/// A match rule ("Match Rules" in the specification): which signals a subscriber wants.
///
/// The bus filters with the rule's text; the connection checks the same rule again locally,
/// because one connection's rules all feed one queue of incoming messages.
public struct MatchRule: Hashable, Sendable, CustomStringConvertible {
  /// Only this message type; signals unless set otherwise.
  public var kind: Message.Kind? = .signal
  /// Only messages from this sender. A well-known name is checked by the bus alone, because
  /// messages carry the sender's unique name.
  public var sender: BusName?
  public var interface: InterfaceName?
  public var member: MemberName?
  public var path: ObjectPath?
  /// Only messages from this path or below it.
  public var pathNamespace: ObjectPath?
  /// String arguments that must be equal: `[0: ":1.42"]` is `arg0=':1.42'`.
  public var arguments: [Int: String] = [:]

  /// A rule matching signals with the given fields; nil fields match anything.
  public init(
    sender: BusName? = nil, interface: InterfaceName? = nil, member: MemberName? = nil,
    path: ObjectPath? = nil, pathNamespace: ObjectPath? = nil, arguments: [Int: String] = [:]
  ) {
    self.sender = sender
    self.interface = interface
    self.member = member
    self.path = path
    self.pathNamespace = pathNamespace
    self.arguments = arguments
  }

  /// The rule as the bus reads it, such as `type='signal',interface='org.example.Demo'`.
  public var description: String {
    var parts: [String] = []
    func add(_ key: String, _ value: String) {
      // Inside quotes nothing is special; a quote is closed, escaped and reopened.
      parts.append("\(key)='" + value.replacingOccurrences(of: "'", with: "'\\''") + "'")
    }
    if let kind {
      let name =
        switch kind {
        case .signal: "signal"
        case .methodCall: "method_call"
        case .methodReturn: "method_return"
        case .error: "error"
        }
      add("type", name)
    }
    if let sender { add("sender", sender.rawValue) }
    if let interface { add("interface", interface.rawValue) }
    if let member { add("member", member.rawValue) }
    if let path { add("path", path.rawValue) }
    if let pathNamespace { add("path_namespace", pathNamespace.rawValue) }
    for (index, value) in arguments.sorted(by: { $0.key < $1.key }) { add("arg\(index)", value) }
    return parts.joined(separator: ",")
  }

  /// Whether `message` satisfies every field of the rule.
  public func matches(_ message: Message) -> Bool {
    if let kind, message.kind != kind { return false }
    if let sender, sender.isUnique, message.sender != sender { return false }
    if let interface, message.interface != interface { return false }
    if let member, message.member != member { return false }
    if let path, message.path != path { return false }
    if let pathNamespace {
      guard let messagePath = message.path, messagePath.isDescendant(of: pathNamespace) else {
        return false
      }
    }
    for (index, value) in arguments {
      guard index < message.body.count, message.body[index].string == value else { return false }
    }
    return true
  }
}

extension String {
  fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
    split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}
