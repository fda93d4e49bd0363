// SPDX-License-Identifier: MIT
//
// The Flatpak secret portal's backend, `org.freedesktop.impl.portal.Secret` on
// /org/freedesktop/portal/desktop: xdg-desktop-portal asks it for a sandboxed application's
// master key (libsecret's file backend inside the sandbox encrypts with it) and passes the
// application's file descriptor to write it to. The key is the item owned by `portal:APP_ID`
// in the default collection, then in any unlocked one, or one an import brought (no owner, an
// `app_id` and little else: a key gnome-keyring or oo7 made is the same key); else a new one:
// 64 random bytes. An item another program stored with that `app_id` is never the key. A
// locked default collection is unlocked through the usual prompt first, and the call waits.
//
// Unlike gnome-keyring and oo7, only the portal may ask: the caller must own
// org.freedesktop.portal.Desktop and be xdg-desktop-portal itself, a root-owned executable of
// that name identified by the kernel (see `IdentityResolver`), so that no process can fetch
// another app's key by taking the name while the portal is not running. The key is never
// logged.

import Foundation
import KeychainAccess
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import KeychainSystem
import SecretServiceProtocol
import SystemPackage

struct PortalInterface: DBusInterface {
  let core: DaemonCore

  static let path: ObjectPath = "/org/freedesktop/portal/desktop"
  static let portalName: BusName = "org.freedesktop.portal.Desktop"
  static let keySize = 64

  /// The portal's responses: success, cancelled (the unlock was dismissed), any other error.
  enum Response: UInt32 {
    case success = 0
    case cancelled = 1
    case failed = 2
  }

  static let table = InterfaceTable<PortalInterface>(SecretService.Interfaces.portal) { table in
    table.on(SecretService.PortalMethods.retrieveSecret, retrieveSecret)
    table.get(SecretService.PortalMethods.version) { _ in { _ in 1 } }
  }

  /// The app's key, written to `fd`; `handle` and `options` are not used (keychaind shows no
  /// dialog of its own that a handle could close).
  func retrieveSecret(
    _ request: MethodRequest, handle: ObjectPath, appID: String, fd: PassedDescriptor,
    options: [String: DBusValue]
  ) async throws -> (UInt32, [String: DBusValue]) {
    // Only the portal: anyone else could name any app and take its key.
    let portal = try? await request.connection.nameOwner(Self.portalName)
    let caller = await core.access.caller(of: request)
    guard let portal, portal == request.caller, Self.isThePortal(caller.identity) else {
      core.logger.warning(
        "refused a Flatpak app's key to \(caller.identity.display) (pid \(caller.pid.map(String.init) ?? "?")): only xdg-desktop-portal may ask"
      )
      throw DBusError(
        .accessDenied,
        "only xdg-desktop-portal (a root-owned program that owns \(Self.portalName)) may ask")
    }
    guard Self.isValid(appID) else { return (Response.failed.rawValue, [:]) }
    let response = await retrieve(appID, into: fd.descriptor, request, portal: caller)
    return (response.rawValue, [:])
  }

  /// Whether `identity` is xdg-desktop-portal: a root-owned executable of that name, which
  /// only root could have put there.
  static func isThePortal(_ identity: AppIdentity) -> Bool {
    identity.kind == .system && identity.key.hasPrefix("exe:/")
      && identity.key.hasSuffix("/xdg-desktop-portal")
  }

  /// A Flatpak application id: reverse-DNS, at least two elements of letters, digits, `_` and
  /// `-`, at most 255 bytes.
  static func isValid(_ appID: String) -> Bool {
    let elements = appID.split(separator: ".", omittingEmptySubsequences: false)
    return appID.utf8.count <= 255 && elements.count >= 2
      && elements.allSatisfy { element in
        !element.isEmpty && element.first?.isNumber == false
          && element.allSatisfy {
            $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-")
          }
      }
  }

  private func retrieve(
    _ appID: String, into fd: UnixFileDescriptor, _ request: MethodRequest, portal: CallerApp
  ) async -> Response {
    let view = StoreView(request, core: core)
    guard let collection = (try? view.alias("default")) ?? nil else {
      core.logger.warning("a Flatpak app asked for its key, and there is no default collection")
      return .failed
    }
    if view.isLocked(collection) {
      let outcome = await core.prompter.run(
        .unlock(
          collections: [collection], objects: [Resolver.path(ofCollection: collection)],
          forApp: appID))
      // The portal's call waits for the dialog: its signals go now, not after its reply.
      await core.publish(outcome.events, on: request.connection)
      guard !view.isLocked(collection) else { return outcome.dismissed ? .cancelled : .failed }
    }
    do {
      // One job on the store: the key found or made, and made at most once.
      let (key, item, created) = try await view.write(using: [collection]) {
        try Self.key(for: appID, in: collection, $0)
      }
      if created { await core.publish([.itemCreated(item)], on: request.connection) }
      // Recorded as the app the portal vouches for, with the portal's pid.
      let app = AppIdentity(
        kind: .portal, key: "portal:\(appID)", display: "\(appID) (through xdg-desktop-portal)",
        verified: portal.identity.verified)
      core.access.log([
        AuditRecord(
          op: created ? .create : .read, decision: .owner,
          app: AuditRecord.App(app, pid: portal.pid), sender: request.caller.rawValue,
          item: Resolver.path(of: item).rawValue)
      ])
      return Self.write(key, to: fd) ? .success : .failed
    } catch {
      core.logger.warning("the key of a Flatpak app could not be read or made: \(error)")
      return .failed
    }
  }

  /// The app's key: in `collection`, else in any unlocked collection, the item with its
  /// `app_id` that the portal made (owned by `portal:APP_ID`) or an import brought (no owner,
  /// `isImportedKey`), the portal's first and then the oldest; else a new one stored in
  /// `collection`. Another program's item with that `app_id` is never the key.
  static func key(for appID: String, in collection: String, _ store: KeychainStore) throws
    -> (SecureBytes, item: ItemID, created: Bool)
  {
    let mine = "portal:\(appID)"
    for scope in [collection, nil] as [String?] {
      let found = try store.searchItems(["app_id": appID], in: scope).unlocked
      let candidates = try found.compactMap { item -> (ItemID, ItemInfo, Bool)? in
        let info = try store.itemInfo(item)
        let owner = try store.owner(of: item)
        if owner?.key == mine { return (item, info, true) }
        guard owner == nil, Self.isImportedKey(info.attributes) else { return nil }
        return (item, info, false)
      }
      let ranked = candidates.sorted { $0.2 != $1.2 ? $0.2 : $0.1.created < $1.1.created }
      if let best = ranked.first {
        return (try store.secret(of: best.0).secret, best.0, false)
      }
    }
    let key = SecureBytes.random(count: keySize)
    let (item, _) = try store.createItem(
      in: collection, label: "Application key for \(appID)",
      attributes: ["app_id": appID, "xdg:schema": schema], secret: key,
      contentType: "application/octet-stream", replace: false,
      owner: ItemOwner(key: "portal:\(appID)"))
    return (key, item, true)
  }

  static let schema = "org.freedesktop.portal.Secret"

  /// Whether an item an import brought has the shape of a portal key: its `app_id`, and at
  /// most a schema and a content type besides (gnome-keyring's carry the generic schema, oo7's
  /// a content type).
  static func isImportedKey(_ attributes: [String: String]) -> Bool {
    attributes["app_id"] != nil
      && Set(attributes.keys).isSubset(of: ["app_id", "xdg:schema", "xdg:content-type"])
  }

  /// Writes the whole key; false if the reader went away (EPIPE, with SIGPIPE blocked for the
  /// write: it would end the daemon) or the descriptor is not writable.
  static func write(_ key: SecureBytes, to fd: UnixFileDescriptor) -> Bool {
    key.withUnsafeBytes { bytes in
      (try? FileDescriptor(rawValue: fd.rawValue).writeAll(bytes: bytes)) != nil
    }
  }

}

/// The portal's backend as a front end of the daemon, at /org/freedesktop/portal/desktop.
public struct PortalFrontEnd: FrontEnd {
  let core: DaemonCore

  public init(core: DaemonCore) { self.core = core }

  public func mount(on tree: inout Mounts) {
    tree.mount(at: PortalInterface.path) { [core] in [PortalInterface(core: core)] }
  }
}
