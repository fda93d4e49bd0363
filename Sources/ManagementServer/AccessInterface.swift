// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Access` on the service object: `keychainctl access` and
// `keychainctl audit verify`. Widening access (Allow, Learn) needs the password of every
// collection it touches; narrowing it (Revoke) needs none.

import Foundation
import KeychainAccess
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

struct AccessInterface: DBusInterface {
  let core: DaemonCore

  typealias Methods = SecretService.AccessMethods

  static let table = InterfaceTable<AccessInterface>(SecretService.Interfaces.access) { table in
    table.on(Methods.identify, identify)
    table.on(Methods.list, list)
    table.on(Methods.allow, allow)
    table.on(Methods.allowCredential, allowCredential)
    table.on(Methods.revoke, revoke)
    table.on(Methods.runsCommand, runsCommand)
    table.on(Methods.learn, learn)
    table.on(Methods.startLearning, startLearning)
    table.on(Methods.learning, learning)
    table.on(Methods.applyLearning, applyLearning)
    table.on(Methods.discardLearning, discardLearning)
    table.on(Methods.groupAdd, groupAdd)
    table.on(Methods.groupRemove, groupRemove)
    table.on(Methods.groupOf, groupOf)
    table.on(Methods.verifyAudit, verifyAudit)
    table.on(Methods.flushAudit, flushAudit)
    table.on(Methods.mode, mode)
    table.on(Methods.setMode, setMode)
  }

  func identify(_ request: MethodRequest) async throws -> (String, String, String) {
    let identity = await core.access.caller(of: request).identity
    return (identity.key, identity.kind.rawValue, identity.display)
  }

  func runsCommand(_ request: MethodRequest, path: String) async throws {
    guard core.access.isOn else { return }
    try core.access.runsCommand(path, caller: await core.access.caller(of: request))
  }

  func list(_ request: MethodRequest) async throws -> String {
    let view = StoreView(request, core: core)
    var listing = AccessListing(
      mode: core.access.mode.rawValue, grants: [], owners: [], unowned: [:], locked: [])
    for collection in try view.collections().map(\.name)
    where collection != KeychainStore.sessionCollection {
      guard !view.isLocked(collection) else {
        listing.locked.append(collection)
        continue
      }
      let (grants, owners, items) = try view.metadata { store in
        (
          try store.grants(in: collection), try store.owners(in: collection),
          try store.items(in: collection) as [ItemID]
        )
      }
      let existing = Set(items.map(\.id))
      for grant in grants where grant.item.map(existing.contains) ?? true {
        listing.grants.append(
          AccessListing.Grant(
            id: grant.id, app: grant.app, pin: grant.pin, collection: collection,
            item: grant.item.map {
              Resolver.path(of: ItemID(collection: collection, id: $0)).rawValue
            },
            group: grant.group, created: Int64(grant.created.timeIntervalSince1970),
            source: grant.source))
      }
      var counts: [String: Int] = [:]
      for item in items {
        if let owner = owners[item.id] { counts[owner.key, default: 0] += 1 }
      }
      listing.owners += counts.sorted { $0.key < $1.key }.map {
        AccessListing.Owner(app: $0.key, collection: collection, items: $0.value)
      }
      let unowned = items.count(where: { owners[$0.id] == nil })
      if unowned > 0 { listing.unowned[collection] = unowned }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(listing), as: UTF8.self)
  }

  func allow(_ request: MethodRequest, app: String, objects: [ObjectPath], password: Secret)
    async throws -> UInt32
  {
    let view = StoreView(request, core: core)
    let secret = try core.sessions.password(in: password, caller: request.caller)
    let (key, pin) = try core.access.applicationKey(app)
    let targets = try self.targets(objects, view)
    try await checkPassword(secret, for: Set(targets.map(\.collection)), view)
    var granted: UInt32 = 0
    for target in targets {
      let grant = AccessGrant(
        app: key, pin: pin, collection: target.collection, item: target.item, source: "cli")
      _ = try await view.write { try $0.addGrant(grant) }
      view.note(.grant, .allowed, target.path)
      granted += 1
    }
    core.logger.notice("access: \(key) allowed \(granted) object(s) by keychainctl")
    return granted
  }

  func revoke(_ request: MethodRequest, app: String, objects: [ObjectPath]) async throws -> UInt32 {
    let view = StoreView(request, core: core)
    let (key, _) = try core.access.applicationKey(app)
    var revoked = 0
    for target in try targets(objects, view) {
      guard !view.isLocked(target.collection) else {
        throw DBusError(
          .isLocked, "the collection \(target.collection) is locked: unlock it to revoke its grants"
        )
      }
      let ids = try view.metadata { try $0.grants(in: target.collection) }
        .filter { $0.app == key && (target.item == nil || $0.item == target.item) }.map(\.id)
      revoked += try await view.write { [ids] in try $0.removeGrants(ids, in: target.collection) }
      view.note(.revoke, .allowed, target.path)
    }
    core.logger.notice("access: \(revoked) grant(s) of \(key) revoked by keychainctl")
    return UInt32(revoked)
  }

  /// See `AccessMethods.flushAudit`: on the blocking pool, as it syncs the file.
  func flushAudit(_ request: MethodRequest) async throws {
    let access = core.access
    await Blocking.run { access.flushAudit() }
  }

  func verifyAudit(_ request: MethodRequest) async throws -> (Bool, String, UInt64) {
    guard let audit = core.access.audit else {
      return (false, "there is no audit log: access-control is off", 0)
    }
    core.access.flushAudit()
    guard let verdict = audit.verify() else {
      throw DBusError(
        .isLocked, "the audit log's key is in the store: unlock a collection first")
    }
    let unproven = verdict.unproven.map { "\($0.lowerBound)–\($0.upperBound)" }
    let note =
      unproven.isEmpty
      ? ""
      : "records \(unproven.joined(separator: ", ")) were written before the keyring was unlocked by a keychaind that stopped before it could seal them: they are in order, but no MAC vouches for their content"
    return (verdict.problem == nil, verdict.problem ?? note, UInt64(verdict.good))
  }

  // MARK: Helpers

  /// What an Allow or Revoke names: items, or whole collections.
  struct Target {
    var collection: String
    var item: Int64?
    var path: ObjectPath
  }

  func targets(_ objects: [ObjectPath], _ view: StoreView) throws -> [Target] {
    guard !objects.isEmpty else {
      throw DBusError(.invalidArgs, "name at least one item or collection")
    }
    return try objects.map { object in
      let parsed = SecretPath(object)
      switch parsed {
      case .item?, .aliasItem?:
        // An item that is not there is an error, never its whole collection: a mistyped
        // number must not grant (or revoke) every item beside it.
        guard let parsed, let item = try view.itemID(at: parsed),
          try view.metadata({ try $0.exists(item) })
        else { throw DBusError(.noSuchObject, "there is no item \(object.rawValue)") }
        return Target(collection: item.collection, item: item.id, path: object)
      default:
        return Target(collection: try view.namedCollection(object), item: nil, path: object)
      }
    }
  }

  /// Checks `password` against each collection; a locked one is unlocked with it.
  func checkPassword(_ password: SecureBytes, for collections: Set<String>, _ view: StoreView)
    async throws
  {
    let unlocker = core.unlocker
    for collection in collections.sorted() {
      let wasLocked = view.isLocked(collection)
      do {
        try await view.write { store in
          if wasLocked {
            _ = try unlocker.unlock(
              collection, with: password, route: UnlockRecord.Route.accessGrant,
              runningHook: false)
          } else {
            try store.checkPassword(collection, password)
          }
        }
      } catch StoreError.wrongPassword {
        throw DBusError(
          .accessDenied, "that is not the password of the collection \(collection)")
      }
      if wasLocked {
        view.record(contentsOf: StoreEvent.unlocked([collection], changed: [collection]))
      }
    }
  }
}
