// SPDX-License-Identifier: MIT

/// `org.freedesktop.DBus.Properties` for one object, over the declarations of its interfaces.
struct PropertiesHandler {
  let interfaces: [any DBusInterface]

  func handle(_ request: MethodRequest) async throws -> [DBusValue] {
    guard let method = InterfaceDescription.properties.method(request.member) else {
      throw DBusError(
        .unknownMethod, "No such method \(DBusError.curlyQuoted(request.member.rawValue))")
    }
    try ObjectServer.checkArguments(request.message, method)
    let interfaceName: String = try request.argument(0)
    switch request.member.rawValue {
    case "Get":
      let (interface, property) = try lookup(interfaceName, try request.argument(1))
      guard property.access.isReadable else {
        throw DBusError(
          .invalidArgs, "Property \(DBusError.curlyQuoted(property.name)) is not readable")
      }
      return [.variant(try await read(interface, property, request))]
    case "Set":
      let (interface, property) = try lookup(interfaceName, try request.argument(1))
      guard property.access.isWritable else { throw DBusError.notWritable(property.name) }
      let value: DBusValue = try request.argument(2)
      guard value.type == property.type else {
        throw DBusError(
          .invalidArgs,
          "Error setting property \(DBusError.curlyQuoted(property.name)): Expected type "
            + "\(DBusError.curlyQuoted(property.type.signature)) but got "
            + DBusError.curlyQuoted(value.type.signature))
      }
      try await interface.setProperty(property.name, to: value, request)
      return []
    default:  // GetAll
      let selected = [try interface(named: interfaceName)]
      var entries: [DBusDictEntry] = []
      for interface in selected {
        let values = try await interface.allProperties(request)
        for property in interface.interfaceDescription.properties where property.access.isReadable {
          guard let value = values[property.name], value.type == property.type else {
            throw DBusError(
              .failed, "property \(property.name) is missing or mistyped in the service")
          }
          entries.append(DBusDictEntry(.string(property.name), .variant(value)))
        }
      }
      return [.dictionary(key: .string, value: .variant, entries)]
    }
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

  /// Reads a property and checks the implementation returned the declared type.
  private func read(
    _ interface: any DBusInterface, _ property: PropertyDescription, _ request: MethodRequest
  ) async throws -> DBusValue {
    let value = try await interface.getProperty(property.name, request)
    guard value.type == property.type else {
      throw DBusError(.failed, "property \(property.name) has the wrong type in the service")
    }
    return value
  }
}
