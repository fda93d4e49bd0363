// SPDX-License-Identifier: MIT
//
// Per-application access in the daemon: who each bus connection is (resolved once, kept until
// it leaves), what the user allowed for this process only, recent denials, and the audit log
// (with the desktop notifications some refusals call for, see `RefusalNotices`).
// The rules themselves are `AccessPolicy`'s; the store keeps owners and grants. Each call's
// `AccessDecision` asks here whether its caller may use an item (once per item), and
// `AccessFilter` writes what each call did to the audit log (`AccessControl+Audit.swift`);
// `AccessControl+Applications.swift` reads the names `keychainctl access` gives applications.

import Foundation
import KeychainAccess
import KeychainCrypto
import KeychainDBus
import KeychainStore
import KeychainSystem
import Logging
import Synchronization

/// How access control is set up (keychaind.conf's `access-control`, and where the audit log
/// goes).
public struct AccessSettings: Sendable {
  public var mode: AccessMode
  /// The audit log's directory; nil keeps no log (only with mode `off`, or in tests).
  public var auditDirectory: String?
  /// Writes a new mode where keychaind reads it at start (keychaind.conf), and says where;
  /// nil when it cannot be kept.
  public var saveMode: (@Sendable (AccessMode) throws -> String)?
  /// Whether refusals the user may want to undo are shown as desktop notifications (see
  /// `RefusalNotices`).
  public var notify: Bool
  /// Where callers' identities are read from: the kernel, or a test's made-up facts.
  public var facts: any SystemFacts
  /// The wall clock denials run out by and the audit chain's anchor is kept by (a test's
  /// own, to move by hand).
  public var now: @Sendable () -> Date

  public init(
    mode: AccessMode = .off, auditDirectory: String? = nil,
    saveMode: (@Sendable (AccessMode) throws -> String)? = nil, notify: Bool = true,
    facts: any SystemFacts = KernelFacts.shared, now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.mode = mode
    self.auditDirectory = auditDirectory
    self.saveMode = saveMode
    self.notify = notify
    self.facts = facts
    self.now = now
  }
}

/// The application behind one bus connection. A class: every call puts it on its request and
/// reads it back several times, and a struct of a dozen strings was copied each time.
package final class CallerApp: Sendable {
  package let identity: AppIdentity
  package let pid: UInt32?
  let sender: BusName
  /// When its process started, to tell it from a later one with the same pid.
  let startTime: UInt64?
  /// How its audit records name it (made once: every record of the connection repeats it).
  let auditApp: AuditRecord.App
  /// The share it calls through, which decides what it may use; nil on the session bus.
  let share: ShareScope?

  /// - Parameter audited: how its audit records name it, when not by `identity` (the command
  ///   keychainctl exec runs, see `runsCommand`).
  init(
    identity: AppIdentity, pid: UInt32?, startTime: UInt64?, sender: BusName,
    share: ShareScope? = nil, audited: AuditRecord.App? = nil
  ) {
    (self.identity, self.pid, self.startTime, self.sender) = (identity, pid, startTime, sender)
    self.share = share
    auditApp = audited ?? AuditRecord.App(identity, pid: pid)
  }

  /// Whether it runs where a dialog could reach its user (a graphical session): read when a
  /// dialog is about to be shown, not for every connection. A process that has gone, or whose
  /// pid now names another, is taken to have one (see `KernelFacts.hasDisplay`).
  var hasDisplay: Bool {
    guard let pid else { return true }
    guard let startTime, PeerCredentials.startTime(ofProcess: pid) == startTime else {
      return true
    }
    return KernelFacts.hasDisplay(pid: pid)
  }

  /// The key its denials and allow-once answers are kept under: its identity, or its
  /// connection for an application that cannot be remembered.
  var memoryKey: String { identity.isRememberable ? identity.key : "bus:\(sender.rawValue)" }
}

/// The daemon's access control (see the top of this file).
package final class AccessControl: Sendable {
  /// The mode, as `code(of:)` numbers it: `learn --apply` changes it while calls run, and
  /// every call reads it.
  let currentMode: Atomic<Int>
  package let saveMode: (@Sendable (AccessMode) throws -> String)?
  package let audit: AuditLog?
  let resolver: IdentityResolver
  /// The wall clock (`AccessSettings.now`).
  let now: @Sendable () -> Date
  /// When keychaind started, in clock ticks after boot: the arrival of a connection older
  /// than keychaind, for the check that its pid was not reused.
  let startedAt = KernelClock.ticksSinceBoot()
  let notices: RefusalNotices
  /// Sends desktop notifications: through the daemon's connection, once it is published.
  let desktop = Mutex<(@Sendable (Message) async -> Void)?>(nil)
  let logger: Logger
  /// How long a Deny keeps the same application from being asked about the same item again.
  static let denialQuiet: TimeInterval = 5

  struct State {
    var callers: [BusName: CallerApp] = [:]
    /// When each unique name appeared on the bus, in clock ticks after boot.
    var arrivals: [BusName: UInt64] = [:]
    /// Items each connection was allowed once.
    var once: [BusName: Set<ItemID>] = [:]
    /// Items a tool run in a terminal or login was allowed there, by its session-bound key
    /// (see `AppIdentity.isSessionBound`): for as long as keychaind runs, which the session's
    /// key cannot outlive in use.
    var inSession: [String: Set<ItemID>] = [:]
    /// Items a connection whose program cannot be identified created: nobody owns them, but
    /// the connection that made them uses them until it leaves.
    var created: [BusName: Set<ItemID>] = [:]
    /// Until when an application is not asked again about an item.
    var denied: [String: [ItemID: Date]] = [:]
    var auditKey: SecureBytes?
    /// The last anchor kept in the store, and when.
    var anchored: (seq: UInt64, at: Date) = (0, .distantPast)
    /// The routine allows (owner, grant) each connection has had journalled already.
    var journalled: [BusName: Set<AuditRecord.Decision>] = [:]
    /// Collections whose owners were checked for a pin since keychaind started.
    var ownersPinned: Set<String> = []
  }
  let state = Mutex(State())

  /// The store the audit chain's anchor is kept in.
  let store: KeychainStore
  /// The mode keychaind.conf asks for; the mode in force may be higher (see `AccessModeKeeper`).
  /// What keychaind last wrote there (`saveConfiguredMode`), or read from it at start.
  package var configuredMode: AccessMode {
    Self.mode(of: configuredCode.load(ordering: .relaxed))
  }
  private let configuredCode: Atomic<Int>

  init(_ settings: AccessSettings, store: KeychainStore, logger: Logger) {
    self.store = store
    resolver = IdentityResolver(facts: settings.facts)
    now = settings.now
    configuredCode = Atomic(Self.code(of: settings.mode))
    let mode = Self.startingMode(configured: settings.mode, store: store, logger: logger)
    currentMode = Atomic(Self.code(of: mode))
    saveMode = settings.saveMode
    notices = RefusalNotices(enabled: settings.notify)
    self.logger = logger
    if mode != .off, let directory = settings.auditDirectory {
      do {
        audit = try AuditLog(directory: directory, logger: logger)
      } catch {
        logger.error("audit log: cannot open \(directory): \(error); accesses are not recorded")
        audit = nil
      }
    } else {
      audit = nil
    }
    if mode > settings.mode {
      log([
        Self.modeRecord(
          .denied, "keychaind.conf asks for \(settings.mode.rawValue); \(mode.rawValue) stays")
      ])
    }
  }

  static func code(of mode: AccessMode) -> Int {
    switch mode {
    case .off: 0
    case .audit: 1
    case .protect: 2
    }
  }

  static func mode(of code: Int) -> AccessMode {
    switch code {
    case 0: .off
    case 1: .audit
    default: .protect
    }
  }

  package var mode: AccessMode { Self.mode(of: currentMode.load(ordering: .relaxed)) }
  package var isOn: Bool { currentMode.load(ordering: .relaxed) != 0 }
  var enforces: Bool { currentMode.load(ordering: .relaxed) == 2 }

  /// Turns `protect` on (from `audit`: the audit log and identities are there already), and
  /// keeps it for the next start; returns where it was kept.
  package func enforce() throws -> String {
    guard isOn else {
      throw DBusError(.failed, "access-control is off: turn it on in keychaind.conf and restart")
    }
    try setMode(.protect)
    return try saveConfiguredMode(.protect)
  }

  /// Writes `mode` to keychaind.conf, if keychaind has one to write; returns where.
  package func saveConfiguredMode(_ mode: AccessMode) throws -> String {
    guard let saveMode else { return "" }
    let saved = try saveMode(mode)
    configuredCode.store(Self.code(of: mode), ordering: .relaxed)
    return saved
  }

  /// Sends desktop notifications (see `RefusalNotices`) through `connection` from now on. Held
  /// weakly: the connection holds the daemon, which holds this.
  package func notify(through connection: Connection) {
    desktop.withLock {
      $0 = { [weak connection] message in _ = try? await connection?.send(message) }
    }
  }

  // MARK: Callers

  /// keychaind's own unique name on the bus, once it follows arrivals there (see `caller`).
  package let ownName = Mutex<BusName?>(nil)

  /// Whether unique name `peer` connected after `own`: dbus-daemon and dbus-broker number
  /// unique names in order (`:1.N`); false for a name of another shape.
  static func connected(_ peer: BusName, after own: BusName) -> Bool {
    func number(_ name: BusName) -> (Int, Int)? {
      let parts = name.rawValue.dropFirst().split(separator: ".")
      guard name.rawValue.hasPrefix(":"), parts.count == 2, let major = Int(parts[0]),
        let minor = Int(parts[1])
      else { return nil }
      return (major, minor)
    }
    guard let peer = number(peer), let own = number(own) else { return false }
    return peer > own
  }

  /// Notes that unique name `peer` appeared on the bus now.
  package func peerArrived(_ peer: BusName) {
    let now = KernelClock.ticksSinceBoot()
    state.withLock { $0.arrivals[peer] = now }
  }

  /// Forgets everything about a connection that left: its identity and its allow-once answers.
  package func peerLeft(_ peer: BusName) {
    state.withLock { state in
      state.callers[peer] = nil
      state.arrivals[peer] = nil
      state.once[peer] = nil
      state.created[peer] = nil
      state.journalled[peer] = nil
    }
  }

  /// The application behind the call's connection, resolved on its first call. On the
  /// caller's executor: a plain `async` function would move every call off the connection's
  /// thread and back, which cost a read 20–35 µs.
  package nonisolated(nonsending) func caller(of request: MethodRequest) async -> CallerApp {
    let sender = request.caller
    if let known = state.withLock({ $0.callers[sender] }) { return known }
    let credentials = try? await request.callerCredentials()
    var seen = state.withLock { $0.arrivals[sender] }
    if seen == nil, let own = ownName.withLock({ $0 }), Self.connected(sender, after: own) {
      // Connected after keychaind, and its NameOwnerChanged not handled yet (the arrivals
      // are followed by a task of their own, which a busy machine runs after this first
      // call): it arrived by now. Taken for keychaind's start, a new portal was refused as a
      // reused pid.
      seen = KernelClock.ticksSinceBoot()
    }
    let identity: AppIdentity
    let share = request.context.value(ShareScope.self)
    if let share {
      // The share is the grant, and what the audit log names; the process is in its pid.
      identity = share.identity
    } else if let uid = credentials?.uid, uid != getuid() {
      // The session bus is the user's own; another user (root) is never remembered as one of
      // the user's programs.
      identity = .unknown(pid: credentials?.pid, why: "it runs as another user (uid \(uid))")
    } else if let pid = credentials?.pid {
      // A connection older than keychaind arrived before keychaind started, at the latest.
      identity = resolver.identity(
        pid: pid, startTime: credentials?.processStartTime, arrival: seen ?? startedAt,
        arrivalSeen: seen != nil)
    } else {
      identity = .unknown(pid: nil, why: "the bus gave no process id")
    }
    let caller = CallerApp(
      identity: identity, pid: credentials?.pid, startTime: credentials?.processStartTime,
      sender: sender, share: share)
    state.withLock { $0.callers[sender] = caller }
    logger.debug("caller \(sender.rawValue) is \(identity.kind.rawValue) \(identity.key)")
    return caller
  }

  // MARK: Decisions

  /// Whether `caller` may use `item` (an unlocked collection's) without asking, and why.
  func answer(for caller: CallerApp, item: ItemID, in store: KeychainStore) -> AccessAnswer {
    if let share = caller.share {
      return share.contains(item) ? .allow(.grant) : .ask(changed: false)
    }
    let (once, made) = state.withLock {
      (
        $0.once[caller.sender]?.contains(item) == true
          || $0.inSession[caller.identity.key]?.contains(item) == true,
        $0.created[caller.sender]?.contains(item)
      )
    }
    let owner = try? store.owner(of: item)
    if made == true, owner == nil { return .allow(.owner) }
    let grants =
      caller.identity.isRememberable
      ? ((try? store.grants(for: caller.identity.key, on: item)) ?? []) : []
    return AccessPolicy.decide(caller.identity, owner: owner, grants: grants, allowedOnce: once)
  }

  /// A connection whose program cannot be identified (and so owns nothing) created `item`: it
  /// uses the item without asking until it leaves, as a transient owner. Otherwise a program
  /// such as `python3 -c …` could not read back what it had just stored.
  func created(_ item: ItemID, by caller: CallerApp) {
    guard !caller.identity.isRememberable else { return }
    state.withLock { _ = $0.created[caller.sender, default: []].insert(item) }
  }

  /// The user allowed `items` once: for the rest of this connection.
  func allowOnce(_ caller: CallerApp, _ items: [ItemID]) {
    state.withLock { $0.once[caller.sender, default: []].formUnion(items) }
  }

  /// The user allowed `items` to a tool run in a terminal or login, for that session.
  func allowInSession(_ caller: CallerApp, _ items: [ItemID]) {
    guard caller.identity.isSessionBound else { return allowOnce(caller, items) }
    state.withLock { $0.inSession[caller.identity.key, default: []].formUnion(items) }
  }

  /// The user denied `items`: the same application is not asked about them for a while.
  func deny(_ caller: CallerApp, _ items: [ItemID]) {
    let now = now()
    let until = now.addingTimeInterval(Self.denialQuiet)
    state.withLock { state in
      // Denials that have run out go, so that the table holds only the last few seconds'.
      state.denied = state.denied.compactMapValues { items in
        let current = items.filter { $0.value > now }
        return current.isEmpty ? nil : current
      }
      for item in items { state.denied[caller.memoryKey, default: [:]][item] = until }
    }
  }

  /// Whether the application denied `item` moments ago.
  func recentlyDenied(_ caller: CallerApp, _ item: ItemID) -> Bool {
    let now = now()
    return state.withLock { state in
      guard let until = state.denied[caller.memoryKey]?[item] else { return false }
      if until <= now { state.denied[caller.memoryKey]?[item] = nil }
      return until > now
    }
  }
}
