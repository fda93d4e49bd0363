// SPDX-License-Identifier: MIT
//
// The object tree of `org.freedesktop.secrets` (the Secret Service at /org/freedesktop/secrets,
// and what the front ends served beside it mount), and bringing it onto a bus.

import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import Logging
import SecretServiceProtocol
import Synchronization

/// Which objects exist under /org/freedesktop/secrets: the service, collections (by name or
/// alias), items, sessions, prompts.
struct SecretTree: ObjectTree {
  let core: DaemonCore
  /// The front ends' interfaces on the service object, after the Secret Service's own.
  let serviceExtras: [any DBusInterface]
  /// A share's: the tree holds its items and their collections only, and the service object
  /// only the Secret Service (see `ShareScope`).
  var scope: ShareScope? = nil
  var store: KeychainStore { core.store }

  nonisolated(nonsending) func interfaces(at path: ObjectPath) async throws -> [any DBusInterface]?
  {
    guard let parsed = SecretPath(path) else { return nil }
    switch parsed {
    case .service:
      guard scope == nil else { return [ServiceInterface(core: core)] }
      return [ServiceInterface(core: core), GnomeKeyringInterface(core: core)] + serviceExtras
    case .collection, .alias:
      return try Resolver.collection(parsed, in: store, scope: scope).map {
        [CollectionInterface(core: core, name: $0)]
      }
    case .item, .aliasItem:
      return try Resolver.item(parsed, in: store, scope: scope).map {
        [ItemInterface(core: core, item: $0)]
      }
    case .session(let id):
      return core.sessions.exists(id) ? [SessionInterface(core: core, id: id)] : nil
    case .prompt(let id):
      return await core.prompts.exists(id)
        ? [PromptInterface(core: core, id: id)] : nil
    }
  }

  nonisolated(nonsending) func childNodes(of path: ObjectPath) async throws -> [String] {
    let base = SecretPath.base.rawValue
    switch path.rawValue {
    case base: return ["collection", "aliases"]
    case base + "/collection":
      return try store.collections().map(\.name).filter { scope?.shows(collection: $0) ?? true }
    case base + "/aliases": return ["default"]
    default:
      guard case .collection(let name)? = SecretPath(path),
        scope?.shows(collection: name) ?? true
      else { return [] }
      return try store.items(in: name).filter { scope?.contains($0) ?? true }.map { String($0.id) }
    }
  }
}

/// Serves a store as `org.freedesktop.secrets` on a connection.
public final class SecretServiceDaemon: Sendable {
  /// The core front ends are built on, for the parts of keychaind beside the bus that answer
  /// from the same store and access rules (systemd's credentials socket).
  public let core: DaemonCore
  let logger: Logger
  /// The APIs served beside the Secret Service (`serve`).
  private let frontEnds = Mutex<[any FrontEnd]>([])

  /// A daemon over `store`; nothing is on the bus until `publish`.
  /// - Parameters:
  ///   - pinentry: the program that asks for passwords (a name on PATH or a path); nil turns
  ///     prompting off, and prompts then complete dismissed.
  ///   - holdingCalls: calls wait until `answerCalls()`: for start-up work (an unlock) that
  ///     runs once the name is owned.
  ///   - passwordHook: runs with each password that unlocks or creates a collection through a
  ///     prompt or the master-password interface (keychaind imports gnome-keyring's keyrings).
  ///   - lockDefaults: when collections lock by themselves unless they say otherwise
  ///     (keychaind.conf; see `lock(on:where:)`).
  ///   - clock: the time "unused" is measured by (a `ManualClock` in tests).
  ///   - access: per-application access and the audit log (off unless asked for).
  public init(
    store: KeychainStore, pinentry: String? = "pinentry", logger: Logger,
    holdingCalls: Bool = false,
    passwordHook: PasswordHook? = nil, lockDefaults: LockPolicy = LockPolicy(),
    clock: any DaemonClock = SystemClock(), access: AccessSettings = AccessSettings()
  ) {
    core = DaemonCore(
      store: store, pinentry: pinentry, logger: logger, holdingCalls: holdingCalls,
      passwordHook: passwordHook, lockDefaults: lockDefaults, clock: clock, access: access)
    self.logger = logger
    // The Secret Service's signals go before every other front end's.
    core.addAnnouncer(SecretServiceAnnouncer(core: core))
  }

  /// The time the lock timers go by.
  public var clock: any DaemonClock { core.clock }

  /// Opens collections with passwords; every unlock goes through it (see `Unlocker`).
  public var unlocker: Unlocker { core.unlocker }

  /// Forgets the sessions and prompts of `peer`, a caller that left the bus (`publish` does
  /// this from the bus's NameOwnerChanged; an in-memory test says it).
  public func callerLeft(_ peer: BusName, on connection: (any MessageTransport)? = nil) async {
    await core.dropPeer(peer)
    core.access.peerLeft(peer)
    if let connection {
      for frontEnd in frontEnds.withLock({ $0 }) { await frontEnd.callerLeft(peer, on: connection) }
    }
  }

  /// Serves another API beside the Secret Service, on the same store: `make` builds it on the
  /// daemon's core (KWallet's, for one). Call it before `publish` or `objectServer`.
  public func serve(_ make: (DaemonCore) -> any FrontEnd) {
    let frontEnd = make(core)
    frontEnds.withLock { $0.append(frontEnd) }
  }

  /// Answers the calls held since start-up, and every later one.
  public func answerCalls() {
    core.gate.open()
  }

  /// Tells the daemon that `collections` were unlocked outside it (keychaind --unlock): their
  /// search index is checked and repaired in the background, as after any unlock.
  public func collectionsUnlocked(_ collections: [String]) {
    core.unlocked(collections)
  }

  /// Makes the audit log durable and keeps where its chain ends in the store, before keychaind
  /// stops: records cut from the log's end meanwhile are then found at the next start.
  public func stopping() {
    core.access.flushAudit()
    core.access.keepAnchor()
  }

  /// Registers the object tree, starts forgetting departed callers' sessions and prompts, and
  /// only then asks for the bus name, so that no call can arrive before the objects exist.
  public func publish(on connection: Connection, replace: Bool) async throws -> NameRequestResult {
    let departures = try await connection.peerDisconnections()
    Task { [self] in
      for await peer in departures { await callerLeft(peer, on: connection) }
    }
    if core.access.isOn {
      // When each caller connected, to tell its process from a later one with the same pid.
      let arrivals = try await connection.peerArrivals()
      let access = core.access
      access.ownName.withLock { $0 = connection.uniqueName }
      Task {
        for await peer in arrivals { access.peerArrived(peer) }
      }
      access.notify(through: connection)
    }
    // A fallback at the root: every path of the tree, and the parents introspection walks.
    try await connection.register(objectServer(), at: .root)
    var options: NameRequestOptions = [.allowReplacement, .doNotQueue]
    if replace { options.insert(.replaceExisting) }
    return try await connection.requestName(SecretService.busName, options: options)
  }

  /// Asks for `names` besides org.freedesktop.secrets, after `publish`: the same objects are
  /// then reached through each (one connection, several names: KWallet's clients call
  /// org.kde.kwalletd5). Returns each name's result, in order.
  /// With `queue`, a name another process owns comes to keychaind when that one lets it go.
  public func requestAdditionalNames(
    _ names: [BusName], on connection: Connection, replace: Bool, queue: Bool = false
  ) async throws -> [NameRequestResult] {
    var options: NameRequestOptions = [.allowReplacement]
    if !queue { options.insert(.doNotQueue) }
    if replace { options.insert(.replaceExisting) }
    var results: [NameRequestResult] = []
    for name in names { results.append(try await connection.requestName(name, options: options)) }
    return results
  }

  /// The object tree's server, for a connection or an in-memory transport. A secret over the
  /// store's limit is refused before it is copied out of the message; under a DH session it
  /// carries up to 16 bytes of padding.
  public func objectServer() -> ObjectServer {
    var tree = Mounts()
    let frontEnds = frontEnds.withLock { $0 }
    tree.mount(
      SecretTree(core: core, serviceExtras: frontEnds.flatMap { $0.serviceInterfaces() }),
      at: SecretPath.base)
    for frontEnd in frontEnds { frontEnd.mount(on: &tree) }
    // The gate first: a held call has used nothing yet.
    return ObjectServer(
      tree,
      filters: [
        core.gate, AccessFilter(core: core), UseTracking(core: core), MemoryReleaseFilter(),
        EventFilter(core: core),
      ],
      logger: logger,
      maximumByteArray: StoreLimits.maxSecretBytes + 16)
  }

  /// Open sessions and pending prompts, for tests and diagnostics.
  public var callerStateCounts: (sessions: Int, prompts: Int) {
    get async { (core.sessions.count, await core.prompts.count) }
  }
}
