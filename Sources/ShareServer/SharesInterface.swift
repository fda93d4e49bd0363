// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Shares` on the service object (`keychainctl share`), served
// as a front end of the daemon's core. Only the session bus has it: a share's own bus shows the
// Secret Service alone.

import Foundation
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

/// The Shares interface, for `SecretServiceDaemon.serve`.
public struct SharesFrontEnd: FrontEnd {
  let core: DaemonCore
  let host: ShareHost

  public init(core: DaemonCore, host: ShareHost) {
    self.core = core
    self.host = host
  }

  public func serviceInterfaces() -> [any DBusInterface] {
    [SharesInterface(core: core, host: host)]
  }
}

struct SharesInterface: DBusInterface {
  let core: DaemonCore
  let host: ShareHost

  typealias Methods = SecretService.ShareMethods

  /// The longest label, and the longest life, a share may be given (ten years).
  static let maximumLabel = 200
  static let maximumLifetime: UInt64 = 10 * 366 * 24 * 3600

  static let table = InterfaceTable<SharesInterface>(SecretService.Interfaces.shares) { table in
    table.on(Methods.create, create)
    table.on(Methods.list, list)
    table.on(Methods.revoke, revoke)
  }

  /// Every item must exist and be readable by the caller now: a share gives nothing the caller
  /// could not read itself. Each shared item is audited as a grant by the caller.
  func create(
    _ request: MethodRequest, items paths: [ObjectPath], ttl: UInt64, readOnly: Bool,
    label: String
  ) async throws -> (String, String) {
    guard label.count <= Self.maximumLabel,
      !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else {
      throw DBusError(
        .invalidArgs, "a share's label is one line of at most \(Self.maximumLabel) characters")
    }
    guard ttl <= Self.maximumLifetime else {
      throw DBusError(.invalidArgs, "a share lasts ten years at most")
    }
    guard !paths.isEmpty else { throw DBusError(.invalidArgs, "a share needs at least one item") }
    let view = StoreView(request, core: core)
    var items: [ItemID] = []
    for path in paths {
      guard let parsed = SecretPath(path), let item = try view.itemID(at: parsed) else {
        throw DBusError(.noSuchObject, "no such item: \(path.rawValue)")
      }
      guard !view.isLocked(item) else {
        throw DBusError(.isLocked, "\(path.rawValue) is locked: unlock it before sharing it")
      }
      guard (try? view.info(item)) != nil else {
        throw DBusError(.noSuchObject, "no such item: \(path.rawValue)")
      }
      if !items.contains(item) { items.append(item) }
    }
    let (scope, address) = try await host.create(
      items: items, lifetime: ttl == 0 ? nil : .seconds(ttl), readOnly: readOnly, label: label,
      storeDefault: try view.alias("default"), announcingOn: request.connection)
    for item in items { view.note(.grant, .allowed, item) }
    return (scope.id, address)
  }

  func list(_ request: MethodRequest) async throws -> String {
    String(decoding: try JSONEncoder().encode(host.listing()), as: UTF8.self)
  }

  func revoke(_ request: MethodRequest, id: String) async throws {
    guard await host.end(id, because: "revoked") else {
      throw DBusError(
        .noSuchObject, "no share \(id): it has ended (revoked or expired), or never was")
    }
  }
}
