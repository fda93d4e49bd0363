// SPDX-License-Identifier: MIT
//
// One test body at three depths (Hummingbird's TestingSetup): the daemon's object tree in
// memory (no bus: milliseconds, and the test drives the after-reply work), the same tree on a
// private bus in this process (the wire, caller state visible), and the real keychaind binary
// on a private bus (what ships). A test takes a `Depth` argument and runs at each.

import Foundation
import KWalletProtocol
import KWalletServer
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import KeychainTesting
import Logging
import ManagementServer
import SecretServiceProtocol
import SecretServiceServer
import Synchronization

/// A served store with an unlocked `login` collection (the `default` alias) holding one item,
/// and a client to call it with.
final class ServiceFixture: Sendable {
  /// How deep the calls go.
  enum Depth: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The object tree behind an `InMemoryTransport`.
    case inMemory
    /// The object tree on a private bus, in this process.
    case privateBus
    /// The real keychaind (`Binaries.keychaind`) on a private bus.
    case daemon

    var description: String { rawValue }
  }

  /// Who calls: a connection of its own on a bus, a sender name in memory.
  struct Caller: Sendable {
    let name: BusName
    let connection: Connection?
  }

  private enum Served: Sendable {
    case memory(InMemoryTransport)
    case bus(PrivateBus, server: Connection)
    case process(DaemonProcess)
  }

  static let service: ObjectPath = "/org/freedesktop/secrets"
  static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"
  /// login's password.
  static let password = "pw"

  let depth: Depth
  private let served: Served
  /// The daemon's object tree, at the in-process depths.
  let daemon: SecretServiceDaemon?
  private let directory: TemporaryDirectory?
  /// The caller of `call` when no other is given.
  let client: Caller
  /// The path of the one item in `login` (attributes `app: demo`, secret `[2]`).
  var itemPath: ObjectPath { createdItem.withLock { $0 } }
  private let createdItem = Mutex<ObjectPath>(ServiceFixture.login)
  private let nextCaller = Mutex(100)

  /// Serves a new store at `depth`; with `kwallet`, KDE's KWallet API too, on its names (the
  /// binary serves it unless told not to).
  init(_ depth: Depth = .privateBus, pinentry: String? = nil, kwallet: Bool = false) async throws {
    self.depth = depth
    if depth == .daemon {
      let process = try await DaemonProcess(password: Self.password, pinentry: pinentry)
      served = .process(process)
      daemon = nil
      directory = nil
      let connection = try await process.bus.connect()
      client = Caller(name: connection.uniqueName, connection: connection)
    } else {
      let directory = try TemporaryDirectory(prefix: "service-fixture")
      let store = try KeychainStore(directory: directory.path + "/store", kdf: .testing)
      try store.createCollection(
        name: "login", label: "Login", password: SecureBytes(copying: Array(Self.password.utf8)))
      try store.setAlias("default", to: "login")
      let daemon = SecretServiceDaemon(
        store: store, pinentry: pinentry, logger: Logger(label: "service-fixture"))
      // As keychaind serves it: its own interfaces, and KWallet when asked for.
      daemon.serve { ManagementFrontEnd(core: $0) }
      if kwallet { daemon.serve { KWalletFrontEnd(core: $0, kwalletrc: nil) } }
      self.daemon = daemon
      self.directory = directory
      if depth == .inMemory {
        served = .memory(
          InMemoryTransport(serving: daemon.objectServer(), queuingAfterReplyWork: true))
        client = Caller(name: ":1.1", connection: nil)
      } else {
        let bus = try PrivateBus()
        let server = try await bus.connect()
        guard try await daemon.publish(on: server, replace: false) == .primaryOwner else {
          throw TestingError("the private bus gave the name to someone else")
        }
        if kwallet {
          _ = try await daemon.requestAdditionalNames(
            KWallet.services.map(\.name), on: server, replace: false)
        }
        served = .bus(bus, server: server)
        let connection = try await bus.connect()
        client = Caller(name: connection.uniqueName, connection: connection)
      }
    }
    // The item's signals are all out before the fixture is handed over (a test that records
    // signals must not see them): its Items announcement is the last, 50 ms after the reply.
    let announced = try await client.connection?.signals(
      matching: PropertiesMethods.propertiesChanged.rule(path: Self.login))
    let session = try await openSession()
    let secret = Secret(session: session, parameters: [], value: [2], contentType: "text/plain")
    let properties: [String: DBusValue] = [
      ItemProperties.label: .string("x"), ItemProperties.attributes: ["app": "demo"].dbusValue,
    ]
    let created = try await call(
      Self.login, SecretService.collectionInterface,
      SecretService.CollectionMethods.createItem.name,
      [properties.dbusValue, secret.dbusValue, .boolean(false)])
    createdItem.withLock { $0 = created[0].objectPath ?? Self.login }
    if let announced {
      // A bound, not a speed check.
      let arrived = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
          var arrived = announced.makeAsyncIterator()
          return await arrived.next() != nil
        }
        group.addTask { (try? await Task.sleep(for: .seconds(30))) == nil }
        defer { group.cancelAll() }
        return await group.next() ?? false
      }
      guard arrived else { throw TestingError("the fixture's item was never announced") }
    } else {
      await settle()
    }
    // No caller state is left behind: tests count sessions.
    _ = try await call(
      session, SecretService.sessionInterface, SecretService.SessionMethods.close.name)
  }

  /// The in-memory transport, at that depth.
  var transport: InMemoryTransport? {
    if case .memory(let transport) = served { return transport }
    return nil
  }

  /// The private bus, at the depths that have one.
  func bus() throws -> PrivateBus {
    switch served {
    case .memory: throw TestingError("the in-memory depth has no bus")
    case .bus(let bus, _): return bus
    case .process(let process): return process.bus
    }
  }

  /// Calls a method as `client` (or `caller`) and returns the reply's body; an error reply is
  /// thrown as its `DBusError`.
  func call(
    _ path: ObjectPath, _ interface: InterfaceName?, _ member: MemberName,
    _ body: [DBusValue] = [], from caller: Caller? = nil
  ) async throws -> [DBusValue] {
    let caller = caller ?? client
    switch served {
    case .memory(let transport):
      return try InMemoryTransport.body(
        of: await transport.call(path, interface, member, body, from: caller.name))
    case .bus, .process:
      guard let connection = caller.connection else { throw TestingError("no connection") }
      return try await connection.call(
        .methodCall(
          destination: SecretService.busName, path: path, interface: interface, member: member,
          body: body)
      ).body
    }
  }

  /// A plain session of `client` (or `caller`).
  func openSession(from caller: Caller? = nil) async throws -> ObjectPath {
    let reply = try await call(
      Self.service, SecretService.serviceInterface, SecretService.ServiceMethods.openSession.name,
      [.string("plain"), .variant(.string(""))], from: caller)
    guard let path = reply[1].objectPath else { throw TestingError("no session path") }
    return path
  }

  /// Another caller: a new connection, or a new sender name in memory.
  func newCaller() async throws -> Caller {
    switch served {
    case .memory:
      let number = nextCaller.withLock { number in
        defer { number += 1 }
        return number
      }
      return Caller(name: BusName(unchecked: ":1.\(number)"), connection: nil)
    case .bus(let bus, _):
      let connection = try await bus.connect()
      return Caller(name: connection.uniqueName, connection: connection)
    case .process(let process):
      let connection = try await process.bus.connect()
      return Caller(name: connection.uniqueName, connection: connection)
    }
  }

  /// `caller` leaves: its connection closes (in memory, the daemon is told, as the bus would).
  func leave(_ caller: Caller) async {
    if let connection = caller.connection {
      await connection.close()
    } else {
      await daemon?.callerLeft(caller.name, on: transport)
    }
  }

  /// Runs the work calls left for after their replies, at the in-memory depth (on a bus it
  /// runs by itself).
  func settle() async {
    if case .memory(let transport) = served { await transport.settle() }
  }

  /// Unlocks `login` with its password through gnome-keyring's master-password call.
  func unlockLogin() async throws {
    let session = try await openSession()
    let master = Secret(
      session: session, parameters: [], value: Array(Self.password.utf8),
      contentType: "text/plain")
    _ = try await call(
      Self.service, SecretService.gnomeInternalInterface,
      SecretService.GnomeKeyringMethods.unlockWithMasterPassword.name,
      [.objectPath(Self.login), master.dbusValue])
  }

  /// The secret of the item at `path`, read through the service.
  func secret(of path: ObjectPath) async throws -> [UInt8] {
    let session = try await openSession()
    let reply = try await call(
      path, SecretService.itemInterface, SecretService.ItemMethods.getSecret.name,
      [.objectPath(session)])
    return try Secret(dbusValue: reply[0]).value
  }
}
