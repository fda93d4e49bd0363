// SPDX-License-Identifier: MIT
//
// The live shares: for each, a `dbus-daemon` of its own listening at
// `$XDG_RUNTIME_DIR/keychaind/shares/ID/bus`, and keychaind's connection to it, on which it
// owns org.freedesktop.secrets and serves the share's items alone (`DaemonCore.shareServer`).
// A share ends when it is revoked, when its time is up, or when its bus stops: keychaind then
// closes its connection, stops the bus (which closes every client's connection) and removes
// the socket, so nothing can connect again. keychaind's own end ends them all: the buses are
// bound to it (`BusDaemon`).

import Foundation
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import KeychainSystem
import Logging
import SecretServiceProtocol
import SecretServiceServer
import Synchronization

/// keychaind's shares (see the top of this file).
public final class ShareHost: Sendable {
  let core: DaemonCore
  /// Where the shares' directories are made; nil without a runtime directory.
  let directory: String?
  /// Where dbus-daemon is looked for.
  let searchPath: String
  let logger: Logger
  private let live = Mutex<[String: LiveShare]>([:])

  /// The most shares at once: each is a process.
  static let maximum = 32

  struct LiveShare: Sendable {
    let scope: ShareScope
    let address: String
    let bus: BusDaemon
    let connection: Connection
    let folder: String
    let expiry: Task<Void, Never>?
  }

  /// Shares under `$XDG_RUNTIME_DIR/keychaind/shares` (none can be made without it).
  public init(core: DaemonCore, environment: [String: String], logger: Logger) {
    self.core = core
    directory = environment["XDG_RUNTIME_DIR"].flatMap {
      $0.isEmpty ? nil : $0 + "/keychaind/shares"
    }
    searchPath = environment["PATH"] ?? "/usr/bin:/bin"
    self.logger = logger
  }

  /// A new share of `items` that its callers reach at the address returned; what they change is
  /// announced on `main`. Ends by itself after `lifetime` unless that is nil.
  func create(
    items: [ItemID], lifetime: Duration?, readOnly: Bool, label: String, storeDefault: String?,
    announcingOn main: any MessageTransport
  ) async throws(DBusError) -> (ShareScope, String) {
    guard let directory else {
      throw DBusError(
        .failed, "XDG_RUNTIME_DIR is not set: there is nowhere to put a share's socket")
    }
    guard live.withLock({ $0.count }) < Self.maximum else {
      throw DBusError(.limitsExceeded, "\(Self.maximum) shares are live already; revoke one first")
    }
    let id = Self.newID()
    let now = Date()
    let scope = ShareScope(
      id: id, label: label, items: items, readOnly: readOnly, created: now,
      expires: lifetime.map { now.addingTimeInterval(Double($0.components.seconds)) },
      storeDefault: storeDefault)
    let folder = directory + "/" + id
    do {
      try SystemFiles.privateDirectory(SystemFiles.directory(of: directory))
      try SystemFiles.privateDirectory(directory)
      try SystemFiles.privateDirectory(folder, exclusive: true)
    } catch {
      throw DBusError(.failed, "cannot make \(folder) for the share's socket: \(error)")
    }
    let socket = folder + "/bus"
    let bus: BusDaemon
    do {
      try SystemFiles.replace(
        atPath: folder + "/bus.conf", with: Array(ShareBus.configuration(socket: socket).utf8))
      let searchPath = searchPath
      bus = try await Blocking.run {
        try BusDaemon.start(["--config-file=\(folder)/bus.conf"], searchPath: searchPath)
      }
    } catch {
      Self.removeFolder(folder)
      throw DBusError(.failed, "cannot start the share's bus: \(error)")
    }
    var opened: Connection?
    do {
      let connection = try await Connection.connect(to: bus.address, logger: logger)
      opened = connection
      try await connection.register(core.shareServer(scope, announcingOn: main), at: .root)
      guard
        try await connection.requestName(SecretService.busName, options: [.doNotQueue])
          == .primaryOwner
      else { throw DBusError(.failed, "another program took org.freedesktop.secrets there first") }
      let address = ShareBus.address(socket: socket)
      let expiry = lifetime.map { lifetime in
        Task { [core, weak self] in
          guard (try? await core.clock.sleep(for: lifetime)) != nil else { return }
          await self?.end(id, because: "it expired")
        }
      }
      live.withLock {
        $0[id] = LiveShare(
          scope: scope, address: address, bus: bus, connection: connection, folder: folder,
          expiry: expiry)
      }
      try await follow(scope, connection)
      logger.notice(
        "share \(id) made: \(items.count) item(s), \(readOnly ? "read-only" : "read-write"), at \(address)"
      )
      return (scope, address)
    } catch {
      live.withLock { _ = $0.removeValue(forKey: id) }
      await opened?.close()
      bus.stop()
      Self.removeFolder(folder)
      throw DBusError(.failed, "cannot serve the share's bus: \(error)")
    }
  }

  /// Forgets what the share's callers held as each leaves, and ends the share if its bus stops.
  private func follow(_ scope: ShareScope, _ connection: Connection) async throws {
    let departures = try await connection.peerDisconnections()
    let (core, prefix, id) = (core, DaemonCore.callerPrefix(of: scope), scope.id)
    Task {
      for await peer in departures {
        await core.shareCallerLeft(BusName(unchecked: prefix + peer.rawValue))
      }
    }
    Task { [weak self] in
      for await _ in connection.nameEvents {}
      await self?.end(id, because: "its bus stopped", busGone: true)
    }
  }

  /// The live shares, oldest first.
  func listing() -> [ShareListing] {
    live.withLock { Array($0.values) }.sorted { $0.scope.created < $1.scope.created }.map {
      ShareListing(
        id: $0.scope.id, label: $0.scope.label, address: $0.address, readOnly: $0.scope.readOnly,
        created: Int64($0.scope.created.timeIntervalSince1970),
        expires: $0.scope.expires.map { Int64($0.timeIntervalSince1970) },
        items: $0.scope.items.map { Resolver.path(of: $0).rawValue })
    }
  }

  /// Ends share `id`; false when there is none (any more). A bus that is gone already is not
  /// signalled: its pid may name another process by now.
  @discardableResult
  func end(_ id: String, because reason: String, busGone: Bool = false) async -> Bool {
    guard let share = live.withLock({ $0.removeValue(forKey: id) }) else { return false }
    share.expiry?.cancel()
    // Said before the socket goes: whoever sees it gone finds why in the log.
    logger.notice("share \(id) ended: \(reason)")
    await share.connection.close()
    if !busGone { share.bus.stop() }
    Self.removeFolder(share.folder)
    return true
  }

  /// Ends every share, as keychaind stops.
  public func endAll() async {
    for id in live.withLock({ Array($0.keys) }) { await end(id, because: "keychaind is stopping") }
  }

  /// 12 random hex digits.
  static func newID() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
      .joined()
  }

  /// Removes a share's socket, its bus's configuration and its directory.
  static func removeFolder(_ folder: String) {
    for name in ["bus", "bus.conf"] { unlink(folder + "/" + name) }
    rmdir(folder)
  }
}
