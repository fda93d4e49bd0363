// SPDX-License-Identifier: MIT
//
// Locking with the session, through logind on the system bus: the collections are locked when
// the login session is locked (logind's `Lock` signal, or `LockedHint` becoming true) and
// before the machine sleeps (`PrepareForSleep(true)`), as their lock policies say (see
// `AutoLock`). For sleep, keychaind holds a *delay* inhibitor while any policy locks before
// sleep (from start, after every resume, and from the moment a collection asks for it), and
// lets it go only once the keys are wiped, so no key is in memory when the machine is
// suspended. The screen unlocker's PAM stack (which runs pam_gnome_keyring) unlocks login
// again through the control socket. Without logind (containers, CI) this is one log line.

import Foundation
import KeychainDBus
import KeychainStore
import Logging
import SecretServiceServer
import Synchronization

/// Follows the login session through logind (see the top of this file).
public final class SessionLock: Sendable {
  static let logind: BusName = "org.freedesktop.login1"
  static let managerPath: ObjectPath = "/org/freedesktop/login1"
  static let manager: InterfaceName = "org.freedesktop.login1.Manager"
  static let session: InterfaceName = "org.freedesktop.login1.Session"
  static let user: InterfaceName = "org.freedesktop.login1.User"

  let system: Connection
  let autoLock: AutoLock
  var logger: Logger { autoLock.logger }
  /// The sleep inhibitor's descriptor while it is held.
  private let inhibitor = Mutex<UnixFileDescriptor?>(nil)
  /// Whether the machine is between PrepareForSleep(true) and (false): no new inhibitor then.
  private let sleeping = Mutex(false)

  private init(system: Connection, autoLock: AutoLock) {
    self.system = system
    self.autoLock = autoLock
  }

  /// Connects to the system bus and follows this process's login session. Nil (after one log
  /// line) when there is no system bus or no logind.
  public static func start(environment: [String: String], autoLock: AutoLock) async
    -> SessionLock?
  {
    let logger = autoLock.logger
    let address =
      environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
      ?? "unix:path=/run/dbus/system_bus_socket"
    guard let system = try? await Connection.connect(to: address, logger: logger),
      (try? await system.nameOwner(logind)) ?? nil != nil
    else {
      logger.info("no logind on the system bus: collections lock only when asked")
      return nil
    }
    let lock = SessionLock(system: system, autoLock: autoLock)
    await lock.followSession(environment)
    await lock.followSleep()
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
  private func followSession(_ environment: [String: String]) async {
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
    let autoLock = autoLock
    Task { for await _ in locks { await autoLock.lock(.screenLock) } }
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
        if flag("LockedHint") == true { await autoLock.lock(.screenLock) }
        if let idleHint = flag("IdleHint") { autoLock.idle(idleHint) }
      }
    }
    Task {
      for await _ in removals where await !userHasSessions() {
        await autoLock.lock(.logout)
      }
    }
    let defaults = autoLock.defaults
    logger.info(
      "following logind session \(session.rawValue): lock on screen lock \(defaults.onScreenLock ?? false), after idle \(defaults.afterIdleMinutes ?? 0) min, at the last logout \(defaults.atLogout ?? false) (unless a collection's lock policy says otherwise)"
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

  /// PrepareForSleep: locked before the machine sleeps, under a delay inhibitor.
  private func followSleep() async {
    guard
      let sleeps = try? await system.signals(
        matching: MatchRule(
          sender: Self.logind, interface: Self.manager, member: "PrepareForSleep",
          path: Self.managerPath))
    else { return }
    await refreshInhibitor()
    Task {
      for await message in sleeps {
        guard case .boolean(let going)? = message.body.first else { continue }
        sleeping.withLock { $0 = going }
        if going {
          await autoLock.lock(.sleep)
          // Closing the descriptor lets the sleep go on.
          if inhibitor.withLock({ held in
            defer { held = nil }
            return held != nil
          }) {
            logger.info("released the sleep inhibitor: the keys are wiped")
          }
        } else {
          await refreshInhibitor()
        }
      }
    }
  }

  /// Holds a delay inhibitor while some lock policy locks before sleep, and none otherwise:
  /// at start, after each resume, and after each timer check (a policy changed at run time).
  public func refreshInhibitor() async {
    guard !sleeping.withLock({ $0 }) else { return }
    let (wanted, held) = (autoLock.locksBeforeSleep, inhibitor.withLock { $0 != nil })
    if wanted, !held {
      await inhibit()
    } else if !wanted, held {
      inhibitor.withLock { $0 = nil }
      logger.debug("released the sleep inhibitor: no collection locks before sleep")
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
    // Sleep may have begun while logind answered: then the lock has run, and holding this one
    // would only hold the sleep up.
    guard !sleeping.withLock({ $0 }) else { return }
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
