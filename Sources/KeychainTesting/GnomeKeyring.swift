// SPDX-License-Identifier: MIT
//
// gnome-keyring-daemon on a private bus with a throwaway home, for tests that check our clients
// against the provider most desktops run (skipped where it is not installed).

import Foundation
import Synchronization

/// A running gnome-keyring-daemon with an unlocked login keyring; stopped when released.
public final class GnomeKeyring: Sendable {
  /// The daemon's path, or nil when gnome-keyring is not installed.
  public static let executable: String? = ["/usr/bin/gnome-keyring-daemon"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  public let bus: PrivateBus
  public let home: TemporaryDirectory
  private let running = Mutex<UInt32>(0)

  /// The daemon's process id.
  public var pid: UInt32 { running.withLock { $0 } }

  /// Starts it and waits for the name: with `--unlock` (which creates the login keyring), or,
  /// without `login`, fresh, with no keyring at all (creating one then needs its prompter).
  public init(login: Bool = true) async throws {
    bus = try PrivateBus()
    home = try TemporaryDirectory(prefix: "gnome-keyring")
    try FileManager.default.createDirectory(
      atPath: environment["XDG_RUNTIME_DIR"]!, withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    try await start(unlock: login)
  }

  /// Starts the daemon in this home, with `--unlock` (the login keyring is unlocked, or created)
  /// or without (its keyrings stay locked), and waits until it owns the name.
  public func start(unlock: Bool) async throws {
    guard let executable = Self.executable else { throw TestingError("no gnome-keyring") }
    // The parent exits once the daemon runs in the background.
    let started = try runCommand(
      executable, [unlock ? "--unlock" : "--daemonize", "--components=secrets"],
      environment: environment, stdin: unlock ? Array("password".utf8) : [])
    guard started.status == 0 else { throw TestingError("gnome-keyring: \(started.stderr)") }
    let watcher = try await bus.connect()
    for _ in 0..<1500 {  // a bound, not a speed check
      if try await watcher.nameOwner("org.freedesktop.secrets") != nil { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    guard let pid = try await watcher.credentials(of: "org.freedesktop.secrets").pid else {
      throw TestingError("gnome-keyring did not take org.freedesktop.secrets")
    }
    running.withLock { $0 = pid }
    await watcher.close()
  }

  /// Stops the daemon (SIGTERM) and waits until the process is gone.
  public func stop() async throws {
    guard isRunning else { return }
    kill(pid_t(pid), SIGTERM)
    for _ in 0..<1500 where isRunning {  // a bound, not a speed check
      try await Task.sleep(for: .milliseconds(20))
    }
    guard !isRunning else { throw TestingError("gnome-keyring did not stop") }
  }

  /// The environment for a client of this gnome-keyring.
  public var environment: [String: String] { bus.environment(home: home.path) }

  /// Whether the daemon process is still there.
  public var isRunning: Bool { pid > 0 && kill(pid_t(pid), 0) == 0 }

  // Never kill(0): that would signal the test's own process group.
  deinit { if pid > 0 { kill(pid_t(pid), SIGTERM) } }
}
