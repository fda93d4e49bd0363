// SPDX-License-Identifier: MIT
//
// Who holds org.freedesktop.secrets, and taking it over (--replace). gnome-keyring-daemon
// requests the name without allowing replacement, so the bus refuses a plain RequestName with
// REPLACE_EXISTING; it does stop when asked through its control socket (QUIT, the operation
// pam_gnome_keyring uses), and then the name is free.

import Foundation
import KeychainDBus
import KeyringControl
import Logging
import SecretServiceProtocol

/// The process that owns the name, as far as the bus and /proc tell.
struct NameOwner: CustomStringConvertible {
  let pid: UInt32?
  let executable: String?

  /// The current owner of `name` (org.freedesktop.secrets unless said), or nil when there is
  /// none.
  static func current(_ connection: Connection, name: BusName = SecretService.busName) async
    -> NameOwner?
  {
    guard (try? await connection.nameOwner(name)) ?? nil != nil else { return nil }
    let pid = try? await connection.credentials(of: name).pid
    let executable = pid.flatMap {
      try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\($0)/exe")
    }
    return NameOwner(pid: pid, executable: executable)
  }

  var isGnomeKeyring: Bool {
    executable.map { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix("gnome-keyring-d") }
      ?? false
  }

  var description: String {
    let name = executable.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "a process"
    return "\(name) (pid \(pid.map(String.init) ?? "unknown")\(executable.map { ", \($0)" } ?? ""))"
  }

  /// Whether it is KDE's kwalletd5 or kwalletd6.
  var isKWalletDaemon: Bool {
    executable.map { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix("kwalletd") } ?? false
  }

  /// What to tell the user who wants keychaind instead.
  var advice: String {
    isGnomeKeyring
      ? "start keychaind with --replace (it asks gnome-keyring to quit through its control socket), "
        + "and stop gnome-keyring from starting again: "
        + "systemctl --user mask gnome-keyring-daemon.service gnome-keyring-daemon.socket"
      : "stop it, or start keychaind with --replace if it allows replacement"
  }
}

enum Takeover {
  /// Asks the gnome-keyring that owns the name to quit through its control socket, and waits
  /// (up to 5 s) until the name is free. False, with the reason logged, when that did not work.
  static func stopGnomeKeyring(
    _ owner: NameOwner, connection: Connection, environment: [String: String], logger: Logger
  ) async -> Bool {
    guard let path = ControlClient.socketPath(environment) else {
      logger.warning("cannot reach gnome-keyring's control socket: XDG_RUNTIME_DIR is not set")
      return false
    }
    do {
      let (result, serverPID) = try ControlClient.send(ControlPacket.request(.quit), to: path)
      guard result == .ok, owner.pid.map({ pid_t($0) == serverPID }) ?? true else {
        logger.warning(
          "gnome-keyring's control socket \(path) answered \(result), pid \(serverPID)")
        return false
      }
    } catch {
      logger.warning("gnome-keyring did not take a QUIT: \(error)")
      return false
    }
    for _ in 0..<250 {
      if (try? await connection.nameOwner(SecretService.busName)) ?? nil == nil {
        logger.info("\(owner) quit when asked through \(path)")
        return true
      }
      try? await Task.sleep(for: .milliseconds(20))
    }
    logger.warning("\(owner) was asked to quit but still owns the name after 5 s")
    return false
  }
}
