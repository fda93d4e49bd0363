// SPDX-License-Identifier: MIT
//
// The interfaces every object has, declared like any other: `org.freedesktop.DBus.Properties`
// and `Introspectable`, which the object server serves over the object's own declarations, and
// `Peer`, which libdbus answers itself (declared here for introspection). The first two pass on
// whatever the object's accessors and tree answer, so their errors are not checked against a
// list.

extension Interface {
  /// `org.freedesktop.DBus.Properties`.
  public static let properties = Interface(
    .properties,
    methods: [PropertiesMethods.get, PropertiesMethods.getAll, PropertiesMethods.set],
    signals: [PropertiesMethods.propertiesChanged], checksErrors: false)

  /// `org.freedesktop.DBus.Introspectable`.
  public static let introspectable = Interface(
    .introspectable, methods: [IntrospectableMethods.introspect], checksErrors: false)

  /// `org.freedesktop.DBus.Peer`, which libdbus answers on every path.
  public static let peer = Interface(.peer, methods: [PeerMethods.ping, PeerMethods.getMachineID])
}

/// `org.freedesktop.DBus.Properties`' members.
public enum PropertiesMethods {
  public static let get = Takes<String, String>.Returns<DBusValue>(
    .properties, "Get", ["interface_name", "property_name"], ["value"], errors: [])
  public static let getAll = Takes<String>.Returns<PropertyValues>(
    .properties, "GetAll", ["interface_name"], ["properties"], errors: [])
  public static let set = Takes<String, String, DBusValue>.ReturnsNothing(
    .properties, "Set", ["interface_name", "property_name", "value"], errors: [])
  public static let propertiesChanged = Emits<String, [String: DBusValue], [String]>(
    .properties, "PropertiesChanged",
    ["interface_name", "changed_properties", "invalidated_properties"])
}

/// `org.freedesktop.DBus.Introspectable`'s method.
public enum IntrospectableMethods {
  public static let introspect = NoArguments.Returns<String>(
    .introspectable, "Introspect", [], ["xml_data"], errors: [])
}

/// `org.freedesktop.DBus.Peer`'s methods.
public enum PeerMethods {
  public static let ping = NoArguments.ReturnsNothing(.peer, "Ping", errors: [])
  public static let getMachineID = NoArguments.Returns<String>(
    .peer, "GetMachineId", [], ["machine_uuid"], errors: [])
}

/// `org.freedesktop.DBus.Properties` for one object, over the declarations of its interfaces.
/// Errors are worded as GDBus words them.
struct PropertiesInterface: DBusInterface {
  /// The object's other interfaces.
  let interfaces: [any DBusInterface]

  static let table = InterfaceTable<PropertiesInterface>(.properties) { table in
    table.on(PropertiesMethods.get, get)
    table.on(PropertiesMethods.getAll, getAll)
    table.on(PropertiesMethods.set, set)
  }

  func get(_ request: MethodRequest, interfaceName: String, name: String) async throws
    -> DBusValue
  {
    let (interface, property) = try lookup(interfaceName, name)
    guard property.access.isReadable else {
      throw DBusError(
        .invalidArgs, "Property \(DBusError.curlyQuoted(property.name)) is not readable")
    }
    return try await interface.getProperty(property.name, request)
  }

  func set(_ request: MethodRequest, interfaceName: String, name: String, value: DBusValue)
    async throws
  {
    let (interface, property) = try lookup(interfaceName, name)
    guard property.access.isWritable else { throw DBusError.notWritable(property.name) }
    guard value.type == property.type else {
      throw DBusError(
        .invalidArgs,
        "Error setting property \(DBusError.curlyQuoted(property.name)): Expected type "
          + "\(DBusError.curlyQuoted(property.type.signature)) but got "
          + DBusError.curlyQuoted(value.type.signature))
    }
    try await interface.setProperty(property.name, to: value, request)
  }

  /// Every readable property, in the declaration's order.
  func getAll(_ request: MethodRequest, interfaceName: String) async throws -> PropertyValues {
    let interface = try interface(named: interfaceName)
    let values = try await interface.allProperties(request)
    var entries: [(String, DBusValue)] = []
    for property in interface.interfaceDescription.properties where property.access.isReadable {
      // An interface that answers GetAll itself (`allProperties`) is held to its declaration.
      guard let value = values[property.name], value.type == property.type else {
        throw DBusError(.failed, "property \(property.name) is missing or mistyped in the service")
      }
      entries.append((property.name, value))
    }
    return PropertyValues(entries)
  }

  private func interface(named name: String) throws(DBusError) -> any DBusInterface {
    guard let found = interfaces.first(where: { $0.interfaceDescription.name.rawValue == name })
    else {
      throw DBusError(.invalidArgs, "No such interface \(DBusError.curlyQuoted(name))")
    }
    return found
  }

  private func lookup(_ interfaceName: String, _ propertyName: String) throws(DBusError)
    -> (any DBusInterface, PropertyDescription)
  {
    let interface = try interface(named: interfaceName)
    guard let property = interface.interfaceDescription.property(propertyName) else {
      throw DBusError.noSuchProperty(propertyName)
    }
    return (interface, property)
  }
}

/// `org.freedesktop.DBus.Introspectable` for any path of a tree, with or without an object.
struct IntrospectableInterface: DBusInterface {
  let tree: any ObjectTree

  static let table = InterfaceTable<IntrospectableInterface>(.introspectable) { table in
    table.on(IntrospectableMethods.introspect, introspect)
  }

  func introspect(_ request: MethodRequest) async throws -> String {
    let path = request.path
    let children = try await tree.childNodes(of: path)
    guard let interfaces = try await tree.interfaces(at: path) else {
      // A path with no object introspects as an empty node, as GDBus answers it.
      return IntrospectionXML.document(
        interfaces: children.isEmpty ? [] : [Interface.introspectable.description],
        children: children)
    }
    let standard: [Interface] = [.peer, .introspectable, .properties]
    return IntrospectionXML.document(
      interfaces: standard.map(\.description) + interfaces.map(\.interfaceDescription),
      children: children)
  }
}

/// `GetAll`'s answer: property names and values, in the order they are declared (a Swift
/// dictionary would send them in any order).
public struct PropertyValues: DBusRepresentable, Sendable {
  public var entries: [(name: String, value: DBusValue)]

  public init(_ entries: [(String, DBusValue)]) {
    self.entries = entries.map { (name: $0.0, value: $0.1) }
  }

  /// The values by name.
  public var dictionary: [String: DBusValue] {
    Dictionary(entries.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
  }

  public static var dbusType: DBusType { .dictionary(key: .string, value: .variant) }
  public var dbusValue: DBusValue {
    .dictionary(
      key: .string, value: .variant,
      entries.map { DBusDictEntry(.string($0.name), .variant($0.value)) })
  }
  public init(dbusValue: DBusValue) throws(DBusError) {
    guard case .dictionary(.string, .variant, let entries) = dbusValue else {
      throw .typeMismatch(expected: Self.dbusType, got: dbusValue)
    }
    self.entries = try entries.map { entry throws(DBusError) in
      (try String(dbusValue: entry.key), try DBusValue(dbusValue: entry.value))
    }
  }
}
