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
}
