// SPDX-License-Identifier: MIT
//
// Locking with the session, through logind on the system bus: the collections are locked when
// the login session is locked (logind's `Lock` signal, or `LockedHint` becoming true) and
// before the machine sleeps (`PrepareForSleep(true)`). For sleep, keychaind holds a *delay*
// inhibitor from start and after every resume, and lets it go only once the keys are wiped, so
// no key is in memory when the machine is suspended. The screen unlocker's PAM stack (which
// runs pam_gnome_keyring) unlocks login again through the control socket. Without logind
// (containers, CI) this is one log line.

import Foundation
import KeychainDBus
import KeychainStore
import Logging
import SecretServiceServer
import Synchronization

final class SessionLock: Sendable {
  static let logind: BusName = "org.freedesktop.login1"
  static let managerPath: ObjectPath = "/org/freedesktop/login1"
  static let manager: InterfaceName = "org.freedesktop.login1.Manager"
  static let session: InterfaceName = "org.freedesktop.login1.Session"
  static let user: InterfaceName = "org.freedesktop.login1.User"

  let system: Connection
  let store: KeychainStore
  let lockAll: @Sendable (String) async -> Void
  let logger: Logger
  /// The sleep inhibitor's descriptor while it is held.
  private let inhibitor = Mutex<UnixFileDescriptor?>(nil)

  private init(
    system: Connection, store: KeychainStore, logger: Logger,
    lockAll: @escaping @Sendable (String) async -> Void
  ) {
    self.system = system
    self.store = store
    self.logger = logger
    self.lockAll = lockAll
  }

  /// Connects to the system bus and follows this process's login session. Nil (after one log
  /// line) when there is no system bus or no logind.
  static func start(
    environment: [String: String], configuration: Configuration, store: KeychainStore,
    logger: Logger, lockAll: @escaping @Sendable (String) async -> Void
  ) async -> SessionLock? {
    guard
      configuration.lockOnScreenLock || configuration.lockBeforeSleep
        || configuration.lockAfterIdleMinutes > 0 || configuration.lockWhenSessionsEnd
    else { return nil }
    let address =
      environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
      ?? "unix:path=/run/dbus/system_bus_socket"
    guard let system = try? await Connection.connect(to: address, logger: logger),
      (try? await system.nameOwner(logind)) ?? nil != nil
    else {
      logger.info("no logind on the system bus: collections lock only when asked")
      return nil
    }
    let lock = SessionLock(system: system, store: store, logger: logger, lockAll: lockAll)
    await lock.followSession(environment, configuration)
    if configuration.lockBeforeSleep { await lock.followSleep() }
    return lock
  }

  /// The login session to follow: this process's (started from the session), else the one
  /// XDG_SESSION_ID names, else the user's display session (keychaind started by the user's
  /// systemd manager belongs to no session itself).
  private func findSession(_ environment: [String: String]) async -> ObjectPath? {
    if let path = try? await call("GetSessionByPID", [.uint32(UInt32(getpid()))]).first?
      .objectPath
    {
      return path
    }
    if let id = environment["XDG_SESSION_ID"], !id.isEmpty,
      let path = try? await call("GetSession", [.string(id)]).first?.objectPath
    {
      return path
    }
    guard let user = await userPath(),
      let reply = try? await system.call(
        .methodCall(
          destination: Self.logind, path: user, interface: .properties, member: "Get",
          body: [.string(Self.user.rawValue), .string("Display")])),
      case .variant(.structure(let display))? = reply.body.first, display.count == 2,
      let path = display[1].objectPath, path.rawValue != "/"
    else { return nil }
    return path
  }

  private func userPath() async -> ObjectPath? {
    try? await call("GetUser", [.uint32(getuid())]).first?.objectPath
  }

  /// Lock and LockedHint, IdleHint for the idle timer, and the end of the user's last session.
  private func followSession(_ environment: [String: String], _ configuration: Configuration)
    async
  {
    guard let session = await findSession(environment) else {
      logger.info("not in a logind session: the screen lock does not lock the keyring")
      return
    }
    guard
      let locks = try? await system.signals(
        matching: MatchRule(
          sender: Self.logind, interface: Self.session, member: "Lock", path: session)),
      let hints = try? await system.signals(
        matching: MatchRule(
          sender: Self.logind, interface: .properties, member: "PropertiesChanged", path: session)),
      let removals = try? await system.signals(
        matching: MatchRule(
          sender: Self.logind, interface: Self.manager, member: "SessionRemoved",
          path: Self.managerPath))
    else { return }
    if configuration.lockOnScreenLock {
      Task { for await _ in locks { await lockAll("the session was locked") } }
    }
    let idle = IdleTimer(
      minutes: configuration.lockAfterIdleMinutes, minute: Self.minute(environment)
    ) { [lockAll] in await lockAll("the session was idle") }
    Task {
      for await message in hints {
        guard message.body.first?.string == Self.session.rawValue, message.body.count > 1,
          let changed = try? [String: DBusValue](dbusValue: message.body[1])
        else { continue }
        // The values may come wrapped in their variants or not, depending on the decoder.
        func flag(_ name: String) -> Bool? {
          switch changed[name] {
          case .boolean(let value)?, .variant(.boolean(let value))?: value
          default: nil
          }
        }
        if configuration.lockOnScreenLock, flag("LockedHint") == true {
          await lockAll("the session was locked")
        }
        if let idleHint = flag("IdleHint") { idle.idle(idleHint) }
      }
    }
    if configuration.lockWhenSessionsEnd {
      Task {
        for await _ in removals where await !userHasSessions() {
          await lockAll("the user's last session ended")
        }
      }
    }
    logger.info(
      "following logind session \(session.rawValue): lock on screen lock \(configuration.lockOnScreenLock), after idle \(configuration.lockAfterIdleMinutes) min, at the last logout \(configuration.lockWhenSessionsEnd)"
    )
  }

  /// Whether logind still lists a session of this user.
  private func userHasSessions() async -> Bool {
    guard let user = await userPath(),
      let reply = try? await system.call(
        .methodCall(
          destination: Self.logind, path: user, interface: .properties, member: "Get",
          body: [.string(Self.user.rawValue), .string("Sessions")])),
      case .variant(.array(_, let sessions))? = reply.body.first
    else { return true }  // unknown: keep things as they are
    return !sessions.isEmpty
  }

  /// Seconds in a minute of the idle timer: 60, or KEYCHAIND_TEST_MINUTE_SECONDS for tests.
  static func minute(_ environment: [String: String]) -> Double {
    environment["KEYCHAIND_TEST_MINUTE_SECONDS"].flatMap(Double.init) ?? 60
  }

  /// PrepareForSleep: locked before the machine sleeps, under a delay inhibitor.
  private func followSleep() async {
    guard
      let sleeps = try? await system.signals(
        matching: MatchRule(
          sender: Self.logind, interface: Self.manager, member: "PrepareForSleep",
          path: Self.managerPath))
    else { return }
    await inhibit()
    Task {
      for await message in sleeps {
        guard case .boolean(let going)? = message.body.first else { continue }
        if going {
          await lockAll("the machine is going to sleep")
          inhibitor.withLock { $0 = nil }  // closing it lets the sleep go on
          logger.info("released the sleep inhibitor: the keys are wiped")
        } else {
          await inhibit()
        }
      }
    }
  }

  /// Takes a delay inhibitor for sleep; logind waits for it to be closed (up to its
  /// InhibitDelayMaxSec) before suspending.
  private func inhibit() async {
    let reply = try? await call(
      "Inhibit",
      [
        .string("sleep"), .string("keychaind"), .string("Lock the keyring before sleep"),
        .string("delay"),
      ])
    guard case .unixFD(let fd)? = reply?.first else {
      logger.warning("logind gave no sleep inhibitor: the keyring may sleep unlocked")
      return
    }
    inhibitor.withLock { $0 = fd }
    logger.debug("holding a delay inhibitor for sleep")
  }

  private func call(_ member: MemberName, _ body: [DBusValue]) async throws -> [DBusValue] {
    try await system.call(
      .methodCall(
        destination: Self.logind, path: Self.managerPath, interface: Self.manager, member: member,
        body: body)
    ).body
  }
}

/// Locks after the session has been idle for `minutes` (0: never): started when logind says
/// the session went idle, cancelled when it is active again.
final class IdleTimer: Sendable {
  let minutes: Int
  let minute: Double
  let lock: @Sendable () async -> Void
  private let pending = Mutex<Task<Void, Never>?>(nil)

  init(minutes: Int, minute: Double, lock: @escaping @Sendable () async -> Void) {
    self.minutes = minutes
    self.minute = minute
    self.lock = lock
  }

  func idle(_ isIdle: Bool) {
    guard minutes > 0 else { return }
    let (seconds, lock) = (Double(minutes) * minute, lock)
    pending.withLock { task in
      task?.cancel()
      task =
        isIdle
        ? Task {
          try? await Task.sleep(for: .seconds(seconds))
          if !Task.isCancelled { await lock() }
        } : nil
    }
  }
}

/// Locks every collection when no client has read or written a secret for `minutes` (0:
/// never), checking a few times a minute. Needs no logind.
enum UnusedLock {
  static func start(
    minutes: Int, minute: Double, daemon: SecretServiceDaemon,
    lockAll: @escaping @Sendable (String) async -> Void
  ) -> Task<Void, Never>? {
    guard minutes > 0 else { return nil }
    let limit = Duration.seconds(Double(minutes) * minute)
    return Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(minute / 4))
        if daemon.sinceLastUse >= limit {
          await lockAll("no secret was used for \(minutes) minutes")
        }
      }
    }
  }
}
