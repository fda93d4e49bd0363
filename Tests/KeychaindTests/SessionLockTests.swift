// SPDX-License-Identifier: MIT
//
// Locking with the session: a stand-in for logind (Tests/clients/fake-logind.py) on a private
// system bus sends Lock, LockedHint and PrepareForSleep, and keychaind locks the keyring; the
// screen unlocker's PAM stack opens it again through the control socket. Before sleep, keychaind
// holds a delay inhibitor and lets it go only after the keys are wiped, and takes a new one
// after resume.

import Foundation
import KeychainTesting
import KeyringControl
import Testing

@Suite(
  .enabled(
    if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/jeepney"),
    "python3-jeepney is not installed"))
struct SessionLockTests {
  private static let script =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("clients/fake-logind.py").path

  /// Asks the fake logind to emit `what`, or for its inhibitor counts.
  static func logind(_ system: PrivateBus, _ method: String, _ arguments: [String] = [])
    throws -> String
  {
    let result = try runCommand(
      "/usr/bin/gdbus",
      [
        "call", "--address", system.address, "--dest", "org.freedesktop.login1",
        "--object-path", "/org/freedesktop/login1", "--method",
        "org.keychain_linux.FakeLogind." + method,
      ] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout
  }

  /// Waits (bounded) until `condition` holds.
  static func eventually(_ condition: () throws -> Bool) async throws -> Bool {
    for _ in 0..<500 {
      if try condition() { return true }
      try await Task.sleep(for: .milliseconds(20))  // a bound, not a speed check
    }
    return false
  }

  /// The stand-in logind on `system`, once it owns its name.
  static func fakeLogind(_ system: PrivateBus, noSessionForPID: Bool = false) throws
    -> ChildProcess
  {
    var environment = system.environment()
    if noSessionForPID { environment["FAKE_LOGIND_NO_PID"] = "1" }
    let fake = try ChildProcess(
      "/usr/bin/python3", [script], environment: environment, pipeStdout: true)
    #expect(try fake.readLine() == "ready")
    return fake
  }

  static func locked(_ daemon: DaemonProcess) throws -> Bool {
    try ControlSocketTests.loginLocked(daemon) == true
  }

  /// What the screen unlocker's PAM stack does: UNLOCK through the control socket.
  static func unlockAsPAM(_ daemon: DaemonProcess) throws -> ControlResult {
    try ControlClient.send(
      ControlPacket.request(.unlock, [Array("pw".utf8)]), to: ControlSocketTests.socket(daemon)
    ).result
  }

  @Test func screenLockAndSleepLockTheKeyringAndPamOpensItAgain() async throws {
    let system = try PrivateBus()
    let fake = try Self.fakeLogind(system)
    let daemon = try await DaemonProcess(
      password: "pw", environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address])
    let started = try await Self.eventually {
      let inhibitors = try Self.logind(system, "Inhibitors")
      return daemon.log.contains("following logind session")
        && inhibitors.contains("(uint32 1, uint32 0")
    }
    #expect(started, "\(daemon.log)")
    #expect(try Self.logind(system, "Inhibitors").contains("'sleep keychaind"))
    #expect(try Self.logind(system, "Inhibitors").contains("delay'"))
    let locked = { try Self.locked(daemon) }
    let unlock = { try Self.unlockAsPAM(daemon) }

    // The screen locks: so does the keyring; the unlocker's PAM stack opens it again.
    _ = try Self.logind(system, "Emit", ["lock"])
    #expect(try await Self.eventually(locked), "\(daemon.log)")
    #expect(try unlock() == .ok)
    #expect(try !locked())
    _ = try Self.logind(system, "Emit", ["locked-hint"])
    #expect(try await Self.eventually(locked), "\(daemon.log)")
    #expect(try unlock() == .ok)

    // Sleep: locked, then the inhibitor released; after resume a new one is taken.
    _ = try Self.logind(system, "Emit", ["sleep"])
    #expect(
      try await Self.eventually {
        try Self.logind(system, "Inhibitors").contains("uint32 1, uint32 1")
      },
      "\(daemon.log)")
    #expect(try locked())
    let log = daemon.log
    let lockLine = try #require(log.range(of: "the machine is going to sleep"))
    let releaseLine = try #require(log.range(of: "released the sleep inhibitor"))
    #expect(lockLine.lowerBound < releaseLine.lowerBound)
    _ = try Self.logind(system, "Emit", ["wake"])
    #expect(
      try await Self.eventually {
        try Self.logind(system, "Inhibitors").contains("uint32 2, uint32 1")
      },
      "\(daemon.log)")
    #expect(daemon.isRunning)
    fake.signal(SIGTERM)  // (also keeps the fake alive until here)
  }

  /// keychaind started by the user's systemd manager is in no session: it follows the user's
  /// display session. Idle for the configured minutes (a test-sized minute here), and the end
  /// of the user's last session, lock the keyring.
  @Test func idleTimeAndTheLastLogoutLockTheKeyring() async throws {
    let system = try PrivateBus()
    let fake = try Self.fakeLogind(system, noSessionForPID: true)
    let directory = try TemporaryDirectory(prefix: "session-lock")
    let path = directory.path + "/keychaind.conf"
    try "lock-after-idle = 2\n".write(toFile: path, atomically: true, encoding: .utf8)
    let daemon = try await DaemonProcess(
      password: "pw", arguments: ["--config", path],
      environment: [
        "DBUS_SYSTEM_BUS_ADDRESS": system.address, "KEYCHAIND_TEST_MINUTE_SECONDS": "0.2",
      ])
    #expect(
      try await Self.eventually { daemon.log.contains("following logind session") },
      "\(daemon.log)")
    let locked = { try Self.locked(daemon) }
    let unlock = { try Self.unlockAsPAM(daemon) }
    // Idle, active (the timer is cancelled), idle again: locked two test-sized minutes later.
    _ = try Self.logind(system, "Emit", ["idle"])
    _ = try Self.logind(system, "Emit", ["active"])
    _ = try Self.logind(system, "Emit", ["idle"])
    #expect(try await Self.eventually(locked), "\(daemon.log)")
    #expect(daemon.log.contains("the session was idle"))
    #expect(try unlock() == .ok)
    _ = try Self.logind(system, "Emit", ["active"])
    _ = try Self.logind(system, "Emit", ["end"])
    #expect(try await Self.eventually(locked), "\(daemon.log)")
    #expect(daemon.log.contains("the user's last session ended"))
    fake.signal(SIGTERM)
  }

  /// lock-after-unused: no secret read or written for the configured minutes (test-sized here)
  /// locks every collection; this needs no logind.
  @Test func anUnusedKeyringLocksItself() async throws {
    let directory = try TemporaryDirectory(prefix: "unused-lock")
    let path = directory.path + "/keychaind.conf"
    try "lock-after-unused = 1\n".write(toFile: path, atomically: true, encoding: .utf8)
    let daemon = try await DaemonProcess(
      password: "pw", arguments: ["--config", path],
      environment: ["KEYCHAIND_TEST_MINUTE_SECONDS": "0.5"])
    #expect(
      try await Self.eventually { try ControlSocketTests.loginLocked(daemon) == true },
      "\(daemon.log)")
    #expect(daemon.log.contains("no secret was used for 1 minutes"), "\(daemon.log)")
  }

  /// gnome-keyring's LockService, which desktops' "lock keyring" buttons call: every collection.
  @Test(.createsKeyringsProtectAsksAbout) func lockServiceLocksEveryCollection() async throws {
    let daemon = try await DaemonProcess(password: "pw")
    let created = try daemon.run(
      KeychainctlTests.keychainctl, ["create", "Work", "--password-stdin"],
      stdin: Array("work pw".utf8))
    #expect(created.status == 0, "\(created.stderr)")
    let locked = try daemon.run(
      "/usr/bin/gdbus",
      [
        "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path",
        "/org/freedesktop/secrets", "--method", "org.freedesktop.Secret.Service.LockService",
      ])
    #expect(locked.status == 0 && locked.stdout == "()\n", "\(locked.stderr)")
    let status = try daemon.run(KeychainctlTests.keychainctl, ["status"])
    // (The in-memory session collection has no lock.)
    #expect(status.stdout.contains("collections: 3, 2 locked"), "\(status.stdout)")
  }

  @Test func eachPolicyCanBeTurnedOff() async throws {
    let system = try PrivateBus()
    let fake = try Self.fakeLogind(system)
    let directory = try TemporaryDirectory(prefix: "session-lock")
    let path = directory.path + "/keychaind.conf"
    try "lock-on-screen-lock = false\nlock-before-sleep = no\n".write(
      toFile: path, atomically: true, encoding: .utf8)
    let daemon = try await DaemonProcess(
      password: "pw", arguments: ["--config", path],
      environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address])
    // Nothing locked, nothing inhibited; the first call is answered, so start-up is over.
    #expect(try ControlSocketTests.loginLocked(daemon) == false)
    #expect(try Self.logind(system, "Inhibitors").contains("(uint32 0, uint32 0"))
    #expect(daemon.log.contains("lock on screen lock false"), "\(daemon.log)")
    fake.signal(SIGTERM)
  }
}
