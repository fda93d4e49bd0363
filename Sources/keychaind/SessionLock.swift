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
    guard configuration.lockOnScreenLock || configuration.lockBeforeSleep else { return nil }
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
    if configuration.lockOnScreenLock { await lock.followScreenLock(environment) }
    if configuration.lockBeforeSleep { await lock.followSleep() }
    return lock
  }

  /// The login session of this process (its pid, else XDG_SESSION_ID), and its Lock signal
  /// and LockedHint.
  private func followScreenLock(_ environment: [String: String]) async {
    var session = try? await call("GetSessionByPID", [.uint32(UInt32(getpid()))]).first?.objectPath
    if session == nil, let id = environment["XDG_SESSION_ID"], !id.isEmpty {
      session = try? await call("GetSession", [.string(id)]).first?.objectPath
    }
    guard let session else {
      logger.info("not in a logind session: the screen lock does not lock the keyring")
      return
    }
    guard
      let locks = try? await system.signals(
        matching: MatchRule(
          sender: Self.logind, interface: Self.session, member: "Lock", path: session)),
      let hints = try? await system.signals(
        matching: MatchRule(
          sender: Self.logind, interface: .properties, member: "PropertiesChanged", path: session))
    else { return }
    Task { for await _ in locks { await lockAll("the session was locked") } }
    Task {
      for await message in hints {
        // The values may come wrapped in their variants or not, depending on the decoder.
        guard message.body.first?.string == Self.session.rawValue, message.body.count > 1,
          let changed = try? [String: DBusValue](dbusValue: message.body[1]),
          let hint = changed["LockedHint"],
          hint == .boolean(true) || hint == .variant(.boolean(true))
        else { continue }
        await lockAll("the session was locked")
      }
    }
    logger.info("the keyring locks with the screen (logind session \(session.rawValue))")
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
