// SPDX-License-Identifier: MIT
//
// Debian's kwalletd5 on a private bus with a throwaway home, the peer the KWallet API is
// checked against. It runs headless (Qt's offscreen platform), with its own
// Secret Service turned off so that it takes only org.kde.kwalletd5.

import Foundation
import Synchronization

/// A running kwalletd5; stopped when released.
public final class KWalletd: Sendable {
  /// The daemon's path, or nil when libkf5wallet-bin is not installed.
  public static let executable: String? = ["/usr/bin/kwalletd5"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  public let bus: PrivateBus
  public let home: TemporaryDirectory
  private let process: ChildProcess

  /// Starts it and waits until it owns org.kde.kwalletd5.
  public init() async throws {
    guard let executable = Self.executable else { throw TestingError("no kwalletd5") }
    bus = try PrivateBus()
    home = try TemporaryDirectory(prefix: "kwalletd5")
    let environment = Self.environment(bus, home)
    for directory in [environment["XDG_CONFIG_HOME"]!, environment["XDG_DATA_HOME"]! + "/kwalletd"]
    {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    }
    try FileManager.default.createDirectory(
      atPath: environment["XDG_RUNTIME_DIR"]!, withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    try "[org.freedesktop.secrets]\napiEnabled=false\n".write(
      toFile: environment["XDG_CONFIG_HOME"]! + "/kwalletrc", atomically: true, encoding: .utf8)
    process = try ChildProcess(
      executable, [], environment: environment, stderrFile: home.path + "/kwalletd5.log")
    let watcher = try await bus.connect()
    defer { Task { await watcher.close() } }
    for _ in 0..<1500 {  // a bound, not a speed check
      if try await watcher.nameOwner("org.kde.kwalletd5") != nil { return }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw TestingError("kwalletd5 did not take org.kde.kwalletd5")
  }

  /// The daemon's process id.
  public var pid: pid_t { process.pid }

  /// Whether the daemon process is still there.
  public var isRunning: Bool { process.poll() == nil }

  /// The environment for kwalletd5 and its clients: the bus, the home, no display.
  public var environment: [String: String] { Self.environment(bus, home) }

  private static func environment(_ bus: PrivateBus, _ home: TemporaryDirectory) -> [String: String]
  {
    bus.environment(home: home.path, extra: ["QT_QPA_PLATFORM": "offscreen"])
  }

  deinit { process.signal(SIGTERM) }
}
