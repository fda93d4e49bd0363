// SPDX-License-Identifier: MIT
//
// What an exported interface declares: its methods, properties and signals. The object server
// checks calls against it and introspection prints it, so the two cannot disagree.

/// A named argument of a method or signal.
public struct ArgumentDescription: Sendable, Hashable {
  public var name: String
  public var type: DBusType
  /// An argument called `name` of `type`.
  public init(_ name: String, _ type: DBusType) {
    self.name = name
    self.type = type
  }
}

/// A method: its name, inputs and outputs.
public struct MethodDescription: Sendable, Hashable {
  public var name: MemberName
  public var inputs: [ArgumentDescription] {
    didSet { inputSignature = Self.signature(of: inputs) }
  }
  public var outputs: [ArgumentDescription] {
    didSet { outputSignature = Self.signature(of: outputs) }
  }
  /// The signature the call's arguments must have (kept, as every call is checked against it).
  public private(set) var inputSignature: String
  /// The signature the reply must have.
  public private(set) var outputSignature: String
  public init(
    _ name: MemberName, inputs: [ArgumentDescription] = [], outputs: [ArgumentDescription] = []
  ) {
    self.name = name
    self.inputs = inputs
    self.outputs = outputs
    inputSignature = Self.signature(of: inputs)
    outputSignature = Self.signature(of: outputs)
  }

  private static func signature(of arguments: [ArgumentDescription]) -> String {
    arguments.map(\.type.signature).joined()
  }
}

/// A property: its name, type and whether it can be read and written.
public struct PropertyDescription: Sendable, Hashable {
  /// Read, write, or both.
  public enum Access: String, Sendable {
    case read, write, readwrite
    public var isReadable: Bool { self != .write }
    public var isWritable: Bool { self != .read }
  }
  public var name: String
  public var type: DBusType
  public var access: Access
  public init(_ name: String, _ type: DBusType, _ access: Access = .read) {
    self.name = name
    self.type = type
    self.access = access
  }
}

/// A signal: its name and arguments.
public struct SignalDescription: Sendable, Hashable {
  public var name: MemberName
  public var arguments: [ArgumentDescription]
  public init(_ name: MemberName, _ arguments: [ArgumentDescription] = []) {
    self.name = name
    self.arguments = arguments
  }
}

/// Everything an interface declares.
public struct InterfaceDescription: Sendable, Hashable {
  public var name: InterfaceName
  public var methods: [MethodDescription]
  public var properties: [PropertyDescription]
  public var signals: [SignalDescription]

  public init(
    _ name: InterfaceName, methods: [MethodDescription] = [],
    properties: [PropertyDescription] = [], signals: [SignalDescription] = []
  ) {
    self.name = name
    self.methods = methods
    self.properties = properties
    self.signals = signals
  }

  /// The first declaration of `member`, if this interface has that method (overloads share a
  /// name: the object server picks among them by signature).
  public func method(_ member: MemberName) -> MethodDescription? {
    methods.first { $0.name == member }
  }

  /// The declaration of the property `name`.
  public func property(_ name: String) -> PropertyDescription? {
    properties.first { $0.name == name }
  }
}

/// Introspection XML ("Introspection Data Format" of the specification).
public enum IntrospectionXML {
  /// The document for an object with `interfaces` and child nodes `children`.
  public static func document(interfaces: [InterfaceDescription], children: [String]) -> String {
    var xml = """
      <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
       "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
      <node>

      """
    for interface in interfaces {
      xml += " <interface name=\"\(escape(interface.name.rawValue))\">\n"
      for method in interface.methods {
        xml += "  <method name=\"\(escape(method.name.rawValue))\">\n"
        for arg in method.inputs { xml += argument(arg, direction: "in") }
        for arg in method.outputs { xml += argument(arg, direction: "out") }
        xml += "  </method>\n"
      }
      for signal in interface.signals {
        xml += "  <signal name=\"\(escape(signal.name.rawValue))\">\n"
        for arg in signal.arguments { xml += argument(arg, direction: nil) }
        xml += "  </signal>\n"
      }
      for property in interface.properties {
        xml += "  <property name=\"\(escape(property.name))\" type=\"\(property.type)\""
        xml += " access=\"\(property.access.rawValue)\"/>\n"
      }
      xml += " </interface>\n"
    }
    for child in children { xml += " <node name=\"\(escape(child))\"/>\n" }
    return xml + "</node>\n"
  }

  private static func argument(_ arg: ArgumentDescription, direction: String?) -> String {
    let dir = direction.map { " direction=\"\($0)\"" } ?? ""
    // Names are optional: KWallet leaves its results unnamed, and introspection says so.
    let name = arg.name.isEmpty ? "" : " name=\"\(escape(arg.name))\""
    return "   <arg\(name) type=\"\(escape(arg.type.signature))\"\(dir)/>\n"
  }

  static func escape(_ text: String) -> String {
    var out = ""
    for c in text {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      default: out.append(c)
      }
    }
    return out
  }
}
