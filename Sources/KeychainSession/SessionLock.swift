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
import KeychainDaemonCore
import KeychainStore
import Logging
import Synchronization

/// Follows the login session through logind (see the top of this file).
public final class SessionLock: Sendable {
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
      (try? await system.nameOwner(Logind.name)) ?? nil != nil
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
    if let path = try? await manager(Logind.getSessionByPID, UInt32(getpid())) {
      return path
    }
    if let id = environment["XDG_SESSION_ID"], !id.isEmpty,
      let path = try? await manager(Logind.getSession, id)
    {
      return path
    }
    guard let user = await userPath(),
      let display = try? await system.property(Logind.name, user, Logind.display),
      display.path != .root
    else { return nil }
    return display.path
  }

  private func userPath() async -> ObjectPath? {
    try? await manager(Logind.getUser, getuid())
  }

  /// Lock and LockedHint, IdleHint for the idle timer, and the end of the user's last session.
  private func followSession(_ environment: [String: String]) async {
    guard let session = await findSession(environment) else {
      logger.info("not in a logind session: the screen lock does not lock the keyring")
      return
    }
    guard
      let locks = try? await system.signals(
        matching: Logind.lock.rule(sender: Logind.name, path: session)),
      let hints = try? await system.signals(
        matching: PropertiesMethods.propertiesChanged.rule(sender: Logind.name, path: session)),
      let removals = try? await system.signals(
        matching: Logind.sessionRemoved.rule(sender: Logind.name, path: Logind.managerPath))
    else { return }
    let autoLock = autoLock
    Task { for await _ in locks { await autoLock.lock(.screenLock) } }
    Task {
      for await message in hints {
        guard
          let (interface, changed, _) = try? PropertiesMethods.propertiesChanged.arguments(
            of: message), interface == Logind.session.rawValue
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
      let sessions = try? await system.property(Logind.name, user, Logind.sessions)
    else { return true }  // unknown: keep things as they are
    return !sessions.isEmpty
  }

  /// PrepareForSleep: locked before the machine sleeps, under a delay inhibitor.
  private func followSleep() async {
    guard
      let sleeps = try? await system.signals(
        matching: Logind.prepareForSleep.rule(sender: Logind.name, path: Logind.managerPath))
    else { return }
    await refreshInhibitor()
    Task {
      for await message in sleeps {
        guard let going = try? Logind.prepareForSleep.arguments(of: message) else { continue }
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
    let held = try? await manager(
      Logind.inhibit, "sleep", "keychaind", "Lock the keyring before sleep", "delay")
    guard let fd = held?.descriptor else {
      logger.warning("logind gave no sleep inhibitor: the keyring may sleep unlocked")
      return
    }
    // Sleep may have begun while logind answered: then the lock has run, and holding this one
    // would only hold the sleep up.
    guard !sleeping.withLock({ $0 }) else { return }
    inhibitor.withLock { $0 = fd }
    logger.debug("holding a delay inhibitor for sleep")
  }

  /// Calls a method of logind's manager.
  private func manager<each Input: DBusRepresentable, Output: DBusRepresentable>(
    _ method: Takes<repeat each Input>.Returns<Output>, _ arguments: repeat each Input
  ) async throws -> Output {
    try await system.call(Logind.name, Logind.managerPath, method, repeat each arguments)
  }
}
