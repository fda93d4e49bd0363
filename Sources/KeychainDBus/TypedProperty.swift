// SPDX-License-Identifier: MIT
//
// A property declared once with its Swift type, as methods (`Takes`) and signals (`Emits`)
// are: its introspection description, its name in Get, Set and PropertiesChanged, and the
// typed value on both sides.

/// A property of type `Value` on `interface`.
public struct Property<Value: DBusRepresentable>: Sendable {
  public let interface: InterfaceName
  public let description: PropertyDescription
  /// The name Get, Set, GetAll and PropertiesChanged use, such as `Label`.
  public var name: String { description.name }
  /// The name with its interface, as CreateItem's and CreateCollection's `a{sv}` take it.
  public var qualifiedName: String { interface.rawValue + "." + name }

  public init(
    _ interface: InterfaceName, _ name: String, _ access: PropertyDescription.Access = .read
  ) {
    self.interface = interface
    description = PropertyDescription(name, Value.dbusType, access)
  }

  /// `value` as the property's wire value (what Get answers, inside its variant).
  @inlinable
  public func wire(_ value: Value) -> DBusValue { value.dbusValue }

  /// `value` as a PropertiesChanged entry.
  @inlinable
  public func changed(_ value: Value) -> [String: DBusValue] { [name: value.dbusValue] }

  /// The typed value in `values` (a GetAll answer, its variants unwrapped), if it is there.
  public func value(in values: [String: DBusValue]) throws(DBusError) -> Value? {
    try values[name].map { value throws(DBusError) in try Value(dbusValue: value) }
  }
}
