// SPDX-License-Identifier: MIT
//
// Calling a declared method (`Takes…Returns`) or reading a declared property (`Property`) of
// another service on the bus, typed both ways: the client side of the contract the object
// server serves. A method that returns nothing has its own overload returning `Void` (an empty
// result pack must not cross an `await`: see TypedMethod.swift).

extension Connection {
  /// Calls `method` on the object at `path` of `destination`; the results come back typed, and
  /// a reply of another shape is an error.
  public nonisolated func call<each Input: DBusRepresentable, each Output: DBusRepresentable>(
    _ destination: BusName, _ path: ObjectPath,
    _ method: Takes<repeat each Input>.Returns<repeat each Output>,
    _ arguments: repeat each Input, timeout: Duration = .seconds(25)
  ) async throws(DBusError) -> (repeat each Output) {
    let reply = try await call(
      .methodCall(
        destination: destination, path: path, interface: method.interface, member: method.name,
        body: method.arguments(repeat each arguments)),
      timeout: timeout)
    return try method.decodeResults(reply.body)
  }

  /// Calls `method`, which returns nothing, on the object at `path` of `destination`.
  public nonisolated func call<each Input: DBusRepresentable>(
    _ destination: BusName, _ path: ObjectPath, _ method: Takes<repeat each Input>.ReturnsNothing,
    _ arguments: repeat each Input, timeout: Duration = .seconds(25)
  ) async throws(DBusError) {
    _ = try await call(
      .methodCall(
        destination: destination, path: path, interface: method.interface, member: method.name,
        body: method.arguments(repeat each arguments)),
      timeout: timeout)
  }

  /// Reads `property` of the object at `path` of `destination`.
  public nonisolated func property<Value: DBusRepresentable>(
    _ destination: BusName, _ path: ObjectPath, _ property: Property<Value>
  ) async throws(DBusError) -> Value {
    let value = try await call(
      destination, path, PropertiesMethods.get, property.interface.rawValue, property.name)
    return try Value(dbusValue: value)
  }
}
