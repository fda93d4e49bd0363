// SPDX-License-Identifier: MIT
//
// systemd credentials from the keyring: `keychainctl access allow --unit NAME.service
// --credential ID ITEM` makes a grant for `unit:NAME.service` that names the credential id, and
// `CredentialGrants` answers keychaind's credentials socket (KeychainCredentials) with the item's
// secret when a unit asks for that id, while the item's collection is unlocked. Every answer,
// and every refusal of a unit with no grant, is in the audit log.

import Foundation
import KeychainAccess
import KeychainCredentials
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import Logging
import SecretServiceProtocol

extension AccessInterface {
  func allowCredential(
    _ request: MethodRequest, unit: String, credential: String, item path: ObjectPath,
    password: Secret
  ) async throws -> UInt32 {
    guard CredentialGrants.isUnitName(unit) else {
      throw DBusError(.invalidArgs, "'\(unit)' is no systemd unit name (NAME.service)")
    }
    guard CredentialGrants.isCredentialID(credential) else {
      throw DBusError(
        .invalidArgs,
        "'\(credential)' is no credential id: letters, digits and . _ - @, at most 255")
    }
    let view = StoreView(request, core: core)
    let secret = try core.sessions.password(in: password, caller: request.caller)
    guard let target = try targets([path], view).first, let item = target.item else {
      throw DBusError(.invalidArgs, "name one item, not a collection")
    }
    try await checkPassword(secret, for: [target.collection], view)
    let grant = AccessGrant(
      app: CredentialGrants.key(unit), pin: nil, collection: target.collection, item: item,
      source: "cli", credential: credential)
    _ = try await view.write { try $0.addGrant(grant) }
    view.note(.grant, .allowed, target.path)
    core.logger.notice("access: \(unit) may get \(path.rawValue) as its credential \(credential)")
    return 1
  }
}

/// The secrets systemd units were granted as credentials.
public struct CredentialGrants: CredentialSource {
  let store: KeychainStore
  let access: AccessControl
  let logger: Logger

  public init(core: DaemonCore) {
    (store, access, logger) = (core.store, core.access, core.logger)
  }

  /// The grant key of a unit.
  static func key(_ unit: String) -> String { "unit:\(unit)" }

  /// A unit name as systemd writes them: a name, a dot and a type (`backup.service`).
  static func isUnitName(_ name: String) -> Bool {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@")
    guard let dot = name.lastIndex(of: "."), name.count <= 255, name[..<dot].count > 0 else {
      return false
    }
    return name.allSatisfy(allowed.contains) && name[name.index(after: dot)...].count > 0
  }

  /// A credential id systemd accepts (a file name, at most 255 bytes).
  static func isCredentialID(_ id: String) -> Bool {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@")
    return !id.isEmpty && id.utf8.count <= 255 && id != "." && id != ".."
      && id.allSatisfy(allowed.contains)
  }

  public func credential(unit: String, id: String, peer: pid_t) -> SecureBytes? {
    let key = Self.key(unit)
    let app = AuditRecord.App(
      AppIdentity(kind: .unit, key: key, display: "\(unit) (credential \(id))", verified: true),
      pid: UInt32(peer))
    for collection in (try? store.collections().map(\.name)) ?? []
    where collection != KeychainStore.sessionCollection && !store.isLocked(collection) {
      guard
        let grant = (try? store.grants(in: collection))?.first(where: {
          $0.app == key && $0.credential == id && $0.item != nil
        }), let item = grant.item
      else { continue }
      let itemID = ItemID(collection: collection, id: item)
      guard let (secret, _) = try? store.secret(of: itemID) else { continue }
      access.log([
        AuditRecord(
          op: .read, decision: .grant, app: app, sender: "credentials socket",
          item: Resolver.path(of: itemID).rawValue)
      ])
      logger.info("credentials: gave \(unit) its credential \(id)")
      return secret
    }
    access.log([
      AuditRecord(
        op: .read, decision: .denied, app: app, sender: "credentials socket", item: nil)
    ])
    logger.notice(
      "credentials: \(unit) asked for \(id), which no unlocked collection grants it; refused")
    return nil
  }
}
