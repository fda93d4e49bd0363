// SPDX-License-Identifier: MIT

import Foundation
import KeychainDBus

/// A private `dbus-daemon` for one test, from the configuration committed in `Tests/`.
///
/// No test talks to the user's own session bus: every connection, client and daemon a test
/// starts is pointed at `address`. The bus is killed when this object is freed.
public final class PrivateBus: Sendable {
  /// The bus address, for `DBUS_SESSION_BUS_ADDRESS` or `Connection.connect(to:)`.
  public let address: String
  private let process: ChildProcess

  /// The committed configuration: `Tests/dbus-session.conf` in this checkout.
  public static let defaultConfiguration: String = {
    let here = URL(fileURLWithPath: #filePath)  // Sources/KeychainTesting/PrivateBus.swift
    return here.deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Tests/dbus-session.conf").path
  }()

  /// Starts `dbus-daemon` and waits for it to print its address.
  public init(configuration: String = PrivateBus.defaultConfiguration) throws {
    process = try ChildProcess(
      "dbus-daemon",
      ["--config-file=\(configuration)", "--nofork", "--print-address=1"],
      pipeStdout: true)
    address = try process.readLine(timeout: .seconds(20))
    guard !address.isEmpty else { throw TestingError("dbus-daemon printed no address") }
  }

  /// An environment for a client process on this bus: ours, with the bus address replaced
  /// and no route to the user's own bus or home.
  public func environment(home: String? = nil, extra: [String: String] = [:]) -> [String: String] {
    var env = ProcessInfo.processInfo.environment
    env["DBUS_SESSION_BUS_ADDRESS"] = address
    env["DBUS_SYSTEM_BUS_ADDRESS"] = address
    env.removeValue(forKey: "DISPLAY")
    env.removeValue(forKey: "WAYLAND_DISPLAY")
    if let home {
      env["HOME"] = home
      env["XDG_DATA_HOME"] = home + "/.local/share"
      env["XDG_CONFIG_HOME"] = home + "/.config"
      env["XDG_RUNTIME_DIR"] = home + "/run"
      env["XDG_CACHE_HOME"] = home + "/.cache"
    }
    env.merge(extra) { $1 }
    return env
  }

  /// A new client connection to this bus.
  public func connect() async throws -> Connection {
    try await Connection.connect(to: address)
  }
}
