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
  /// - Parameter home: the home directory of services the bus activates. They inherit the bus's
  ///   environment, so without it an activated daemon would write to the real home.
  public init(configuration: String = PrivateBus.defaultConfiguration, home: String? = nil) throws {
    var environment = ProcessInfo.processInfo.environment
    if let home {
      for (key, value) in Self.homeVariables(home) { environment[key] = value }
    }
    process = try ChildProcess(
      "dbus-daemon",
      ["--config-file=\(configuration)", "--nofork", "--print-address=1"],
      environment: environment, pipeStdout: true)
    address = try process.readLine(timeout: .seconds(20))
    guard !address.isEmpty else { throw TestingError("dbus-daemon printed no address") }
  }

  // dbus-daemon leaves its socket file behind when it is killed (and when it is stopped, too):
  // without this every test left one in /tmp, thousands a run.
  deinit {
    let path = address.split(separator: ",").first { $0.hasPrefix("unix:path=") }
    if let path { unlink(String(path.dropFirst("unix:path=".count))) }
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
      for (key, value) in Self.homeVariables(home) { env[key] = value }
    }
    env.merge(extra) { $1 }
    return env
  }

  /// HOME and the XDG directories of a throwaway home.
  static func homeVariables(_ home: String) -> [String: String] {
    [
      "HOME": home, "XDG_DATA_HOME": home + "/.local/share", "XDG_CONFIG_HOME": home + "/.config",
      "XDG_RUNTIME_DIR": home + "/run", "XDG_CACHE_HOME": home + "/.cache",
      "XDG_STATE_HOME": home + "/.local/state",
    ]
  }

  /// A new client connection to this bus.
  public func connect() async throws -> Connection {
    try await Connection.connect(to: address)
  }
}
