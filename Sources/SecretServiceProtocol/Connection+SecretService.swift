// SPDX-License-Identifier: MIT

import KeychainDBus

extension Connection {
  /// Calls `member` of `interface` on the Secret Service object at `path` (the provider that
  /// owns org.freedesktop.secrets) and returns the reply's arguments.
  public func callSecretService(
    _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
    _ body: [DBusValue] = [], timeout: Duration = .seconds(25)
  ) async throws(DBusError) -> [DBusValue] {
    try await call(
      .methodCall(
        destination: SecretService.busName, path: path, interface: interface, member: member,
        body: body),
      timeout: timeout
    ).body
  }

  /// Calls a declared Secret Service method (see `SecretServiceMethods`) on the object at
  /// `path`; the results come back typed, and a reply of another shape is an error.
  public nonisolated func callSecretService<
    each Input: DBusRepresentable, each Output: DBusRepresentable
  >(
    _ path: ObjectPath, _ method: Takes<repeat each Input>.Returns<repeat each Output>,
    _ arguments: repeat each Input
  ) async throws(DBusError) -> (repeat each Output) {
    try await call(SecretService.busName, path, method, repeat each arguments)
  }

  /// Calls a declared Secret Service method that returns nothing.
  public nonisolated func callSecretService<each Input: DBusRepresentable>(
    _ path: ObjectPath, _ method: Takes<repeat each Input>.ReturnsNothing,
    _ arguments: repeat each Input
  ) async throws(DBusError) {
    try await call(SecretService.busName, path, method, repeat each arguments)
  }

  /// Reads a declared property (see `SecretServiceProperties`) of the object at `path`.
  public nonisolated func getSecretServiceProperty<Value: DBusRepresentable>(
    _ path: ObjectPath, _ property: Property<Value>
  ) async throws(DBusError) -> Value {
    try await self.property(SecretService.busName, path, property)
  }
}
