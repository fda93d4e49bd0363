// SPDX-License-Identifier: MIT
//
// Login unlock through gnome-keyring's control socket: `pam_gnome_keyring.so` (in the PAM
// stacks of gdm, lightdm, sddm, login…) sends UNLOCK with the password the user just logged in
// with, and CHANGE when `passwd` changes it. keychaind listens at $XDG_RUNTIME_DIR/keyring/control
// unless a running gnome-keyring-daemon already answers there.

import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import KeyringControl
import Logging

/// Answers pam_gnome_keyring's requests on the control socket.
public struct LoginControl: ControlHandler {
  let store: KeychainStore
  let core: DaemonCore
  /// Where the unlock's signals go.
  let transport: any MessageTransport
  let environment: [String: String]
  public let logger: Logger
  let stop: @Sendable (String) -> Void

  /// A handler for the daemon's `core` over `store`; `stop` ends the daemon (QUIT).
  public init(
    store: KeychainStore, core: DaemonCore, transport: any MessageTransport,
    environment: [String: String], logger: Logger, stop: @escaping @Sendable (String) -> Void
  ) {
    self.store = store
    self.core = core
    self.transport = transport
    self.environment = environment
    self.logger = logger
    self.stop = stop
  }

  /// Starts the server at gnome-keyring's path; nil (and one log line) when there is none to
  /// take.
  public static func start(_ handler: LoginControl) -> ControlServer? {
    if let adopted = ControlServer.adopt(environment: handler.environment, handler: handler) {
      handler.logger.info("login unlock through PAM: listening at \(adopted.path) (from systemd)")
      return adopted
    }
    guard let path = ControlClient.socketPath(handler.environment) else {
      handler.logger.info("no XDG_RUNTIME_DIR: login unlock through PAM is off")
      return nil
    }
    do {
      guard let server = try ControlServer.listen(at: path, handler: handler) else {
        handler.logger.notice(
          "\(path) is answered by another daemon (gnome-keyring?): login unlock goes there")
        return nil
      }
      handler.logger.info("login unlock through PAM: listening at \(path)")
      return server
    } catch {
      handler.logger.warning("login unlock through PAM is off: \(error)")
      return nil
    }
  }

  public func unlock(password: SecureBytes, peer: pid_t) -> ControlResult {
    let opened: Unlocker.Outcome
    do {
      opened = try core.unlocker.openLogin(with: password, route: Self.route(peer))
    } catch StoreError.wrongPassword {
      logger.notice("the control socket's password (from PAM) does not unlock the login collection")
      return .denied
    } catch {
      logger.error("the login collection could not be unlocked from the control socket: \(error)")
      return .failed
    }
    logger.info("unlocked the login collection through the control socket (PAM)")
    var effects = opened.hooked
    if opened.created { effects.createdCollections.insert(KeychainStore.loginCollection, at: 0) }
    let unlocked = [KeychainStore.loginCollection] + effects.unlockedCollections
    effects.unlockedCollections = []
    let (core, transport) = (core, transport)
    Task { await core.announceUnlocked(unlocked, effects, on: transport) }
    return .ok
  }

  /// The route for `keychainctl doctor`: `keychainctl pam-unlock` run by pam_exec, or
  /// pam_gnome_keyring in the program that runs the PAM stack.
  static func route(_ peer: pid_t) -> String {
    let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(peer)/exe"))
      .map { URL(fileURLWithPath: $0).lastPathComponent }
    // keychainctl is keychaind's executable run by that name.
    if program == "keychainctl" || program == "keychaind" { return UnlockRecord.Route.pamExec }
    return UnlockRecord.Route.pamGnomeKeyring(in: program ?? "pid \(peer)")
  }

  public func change(old: SecureBytes, new: SecureBytes) -> ControlResult {
    do {
      try store.changePassword(KeychainStore.loginCollection, from: old, to: new)
    } catch StoreError.wrongPassword {
      logger.notice("the control socket's old password (from PAM) is not the login collection's")
      return .denied
    } catch {
      logger.error("the login collection could not be re-keyed from the control socket: \(error)")
      return .failed
    }
    logger.info("re-keyed the login collection through the control socket (passwd)")
    return .ok
  }

  public func quit() -> ControlResult {
    stop("asked to quit through the control socket")
    return .ok
  }
}
