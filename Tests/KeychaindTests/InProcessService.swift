// SPDX-License-Identifier: MIT
//
// The daemon's object tree in the test process, on a private bus: fast enough for tables of
// calls, and its caller state is visible.

import KeychainCrypto
import KeychainDBus
import KeychainStore
import KeychainTesting
import Logging
import SecretServiceProtocol
import SecretServiceServer

/// A served store with a `login` collection holding one item, and a client connection.
struct InProcessService {
  let bus: PrivateBus
  let directory: TemporaryDirectory
  let store: KeychainStore
  let daemon: SecretServiceDaemon
  let server: Connection
  let client: Connection
  /// The path of the one item in `login`.
  let itemPath: ObjectPath

  static let service: ObjectPath = "/org/freedesktop/secrets"
  static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"

  /// Serves a new store; `login` is protected by the password `[1]`.
  init(pinentry: String? = nil) async throws {
    bus = try PrivateBus()
    directory = try TemporaryDirectory(prefix: "in-process")
    store = try KeychainStore(directory: directory.path + "/store", kdf: .testing)
    try store.createCollection(name: "login", label: "Login", password: SecureBytes(copying: [1]))
    try store.setAlias("default", to: "login")
    let item = try store.createItem(
      in: "login", label: "x", attributes: ["app": "demo"], secret: SecureBytes(copying: [2]),
      replace: false
    ).item
    itemPath = try ObjectPath("/org/freedesktop/secrets/collection/login/\(item.id)")
    daemon = SecretServiceDaemon(store: store, pinentry: pinentry, logger: Logger(label: "test"))
    server = try await bus.connect()
    guard try await daemon.publish(on: server, replace: false) == .primaryOwner else {
      throw TestingError("the private bus gave the name to someone else")
    }
    client = try await bus.connect()
  }

  /// Calls a method as `client` (or `from`) and returns the reply body.
  func call(
    _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ body: [DBusValue] = [],
    from connection: Connection? = nil
  ) async throws -> [DBusValue] {
    try await (connection ?? client).call(
      .methodCall(
        destination: "org.freedesktop.secrets", path: path, interface: interface, member: member,
        body: body)
    ).body
  }

  /// A plain session of `client` (or `from`).
  func openSession(from connection: Connection? = nil) async throws -> ObjectPath {
    let reply = try await call(
      Self.service, SecretService.serviceInterface, SecretService.ServiceMethods.openSession.name,
      [.string("plain"), .variant(.string(""))], from: connection)
    guard let path = reply[1].objectPath else { throw TestingError("no session path") }
    return path
  }
}
