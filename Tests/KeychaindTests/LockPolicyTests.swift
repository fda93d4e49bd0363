// SPDX-License-Identifier: MIT
//
// Per-collection lock policies (`keychainctl lock-policy`) over keychaind.conf's: a collection
// that stays open through the screen lock, one that locks alone after minutes unused, and one
// that asks for the sleep inhibitor keychaind.conf turned off. The fake logind of
// SessionLockTests sends the events; minutes are test-sized.

import Foundation
import KeychainTesting
import Testing

@Suite(
  .enabled(
    if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/jeepney"),
    "python3-jeepney is not installed"))
struct LockPolicyTests {
  static func keychainctl(_ daemon: DaemonProcess, _ arguments: [String], stdin: String = "")
    throws -> CommandResult
  {
    try daemon.run(KeychainctlTests.keychainctl, arguments, stdin: Array(stdin.utf8))
  }

  /// A second collection, Work, unlocked.
  static func createWork(_ daemon: DaemonProcess) throws {
    let created = try keychainctl(daemon, ["create", "Work", "--password-stdin"], stdin: "work pw")
    #expect(created.status == 0, "\(created.stderr)")
    #expect(try ControlSocketTests.collectionLocked(daemon, "Work") == false)
  }

  @Test(.createsKeyringsProtectAsksAbout) func aCollectionCanStayOpenThroughTheScreenLock()
    async throws
  {
    let system = try PrivateBus()
    let fake = try SessionLockTests.fakeLogind(system)
    let daemon = try await DaemonProcess(
      password: "pw", environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address])
    #expect(
      try await SessionLockTests.eventually { daemon.log.contains("following logind session") },
      "\(daemon.log)")
    try Self.createWork(daemon)
    let set = try Self.keychainctl(daemon, ["lock-policy", "Work", "lock-on-screen-lock=false"])
    #expect(set.status == 0, "\(set.stderr)")
    #expect(set.stdout.contains("lock-on-screen-lock   false   (this collection)"), "\(set.stdout)")
    #expect(set.stdout.contains("lock-before-sleep     true    (keychaind.conf)"), "\(set.stdout)")

    _ = try SessionLockTests.logind(system, "Emit", ["lock"])
    #expect(try await SessionLockTests.eventually { try SessionLockTests.locked(daemon) })
    #expect(try ControlSocketTests.collectionLocked(daemon, "Work") == false, "\(daemon.log)")
    #expect(daemon.log.contains("locked login: the session was locked"), "\(daemon.log)")

    // Back to keychaind.conf's: the next screen lock locks it too.
    #expect(try SessionLockTests.unlockAsPAM(daemon) == .ok)
    let reset = try Self.keychainctl(
      daemon, ["lock-policy", "Work", "lock-on-screen-lock=default"])
    #expect(
      reset.stdout.contains("lock-on-screen-lock   true    (keychaind.conf)"), "\(reset.stdout)")
    _ = try SessionLockTests.logind(system, "Emit", ["locked-hint"])
    #expect(
      try await SessionLockTests.eventually {
        try ControlSocketTests.collectionLocked(daemon, "Work") == true
      }, "\(daemon.log)")
    fake.signal(SIGTERM)
  }

  /// GNOME Shell's screensaver signal on the session bus locks as logind's Lock does, with no
  /// logind at all, and the collections' policies apply to it too.
  @Test(.createsKeyringsProtectAsksAbout) func theDesktopsScreensaverLocksTheKeyring() async throws
  {
    let daemon = try await DaemonProcess(password: "pw")
    try Self.createWork(daemon)
    let set = try Self.keychainctl(daemon, ["lock-policy", "Work", "lock-on-screen-lock=no"])
    #expect(set.status == 0, "\(set.stderr)")
    for interface in ["org.gnome.ScreenSaver", "org.freedesktop.ScreenSaver"] {
      #expect(try SessionLockTests.unlockAsPAM(daemon) == .ok)
      let locked = try await SessionLockTests.eventually {
        // Sent until heard: keychaind subscribes just after it starts answering calls.
        let emitted = try daemon.run(
          "/usr/bin/gdbus",
          [
            "emit", "--session", "--object-path",
            "/" + interface.replacingOccurrences(of: ".", with: "/"),
            "--signal", interface + ".ActiveChanged", "true",
          ])
        #expect(emitted.status == 0, "\(emitted.stderr)")
        return try SessionLockTests.locked(daemon)
      }
      #expect(locked, "\(interface): \(daemon.log)")
      #expect(try ControlSocketTests.collectionLocked(daemon, "Work") == false)
    }
  }

  @Test(.createsKeyringsProtectAsksAbout)
  func aCollectionLocksAloneAfterMinutesUnusedAndKeepsItsPolicy() async throws {
    let daemon = try await DaemonProcess(
      password: "pw", environment: ["KEYCHAIND_TEST_MINUTE_SECONDS": "0.5"])
    try Self.createWork(daemon)
    let set = try Self.keychainctl(daemon, ["lock-policy", "Work", "lock-after-unused=2"])
    #expect(set.status == 0, "\(set.stderr)")
    #expect(
      try await SessionLockTests.eventually {
        try ControlSocketTests.collectionLocked(daemon, "Work") == true
      }, "\(daemon.log)")
    #expect(daemon.log.contains("locked Work: no secret was used for 2 minutes"), "\(daemon.log)")
    #expect(try ControlSocketTests.loginLocked(daemon) == false)

    // Kept in the store: after a restart the collection still says so.
    _ = daemon.kill(with: SIGTERM)
    try await daemon.start()
    let shown = try Self.keychainctl(daemon, ["lock-policy", "Work", "--json"])
    let object = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
    let unused = object?["lock-after-unused"] as? [String: Any]
    #expect(unused?["value"] as? Int == 2 && unused?["own"] as? Bool == true, "\(shown.stdout)")
  }

  @Test func aCollectionThatLocksBeforeSleepTakesTheInhibitor() async throws {
    let system = try PrivateBus()
    let fake = try SessionLockTests.fakeLogind(system)
    let directory = try TemporaryDirectory(prefix: "lock-policy")
    let path = directory.path + "/keychaind.conf"
    try "lock-before-sleep = false\n".write(toFile: path, atomically: true, encoding: .utf8)
    let daemon = try await DaemonProcess(
      password: "pw", arguments: ["--config", path],
      environment: [
        "DBUS_SYSTEM_BUS_ADDRESS": system.address, "KEYCHAIND_TEST_MINUTE_SECONDS": "0.2",
      ])
    #expect(
      try await SessionLockTests.eventually { daemon.log.contains("following logind session") },
      "\(daemon.log)")
    #expect(try SessionLockTests.logind(system, "Inhibitors").contains("(uint32 0, uint32 0"))
    let set = try Self.keychainctl(daemon, ["lock-policy", "login", "lock-before-sleep=yes"])
    #expect(set.status == 0, "\(set.stderr)")
    #expect(
      try await SessionLockTests.eventually {
        try SessionLockTests.logind(system, "Inhibitors").contains("(uint32 1, uint32 0")
      }, "\(daemon.log)")
    _ = try SessionLockTests.logind(system, "Emit", ["sleep"])
    #expect(
      try await SessionLockTests.eventually {
        try SessionLockTests.logind(system, "Inhibitors").contains("uint32 1, uint32 1")
      }, "\(daemon.log)")
    #expect(try SessionLockTests.locked(daemon))
    fake.signal(SIGTERM)
  }

  @Test func badSettingsAreRefusedAndChangeNothing() async throws {
    let daemon = try await DaemonProcess(password: "pw")
    for (arguments, message) in [
      (["login", "lock-after-unused=soon"], "lock-after-unused is a number of minutes"),
      (["login", "lock-on-screen-lock=maybe"], "lock-on-screen-lock is true, false or default"),
      (["login", "lock-when-bored=1"], "expected NAME=VALUE"),
    ] {
      let result = try Self.keychainctl(daemon, ["lock-policy"] + arguments)
      #expect(result.status == 64 && result.stderr.contains(message), "\(result.stderr)")
    }
    // Straight over the bus: an unknown name, a wrong type, the session collection.
    for (collection, settings, error) in [
      ("login", "{'lock-when-bored': <true>}", "unknown lock setting 'lock-when-bored'"),
      ("login", "{'lock-after-idle': <true>}", "lock-after-idle is a number of minutes"),
      ("session", "{'lock-after-idle': <uint32 5>}", "the session collection is never locked"),
    ] {
      let result = try daemon.run(
        "/usr/bin/gdbus",
        [
          "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path",
          "/org/freedesktop/secrets", "--method", "org.keychain_linux.Locking.SetLockPolicy",
          "/org/freedesktop/secrets/collection/\(collection)", settings, "[]",
        ])
      #expect(
        result.status != 0 && result.stderr.contains("InvalidArgs")
          && result.stderr.contains(error), "\(result.stderr)")
    }
    let shown = try Self.keychainctl(daemon, ["lock-policy", "login"])
    #expect(!shown.stdout.contains("this collection"), "\(shown.stdout)")
  }
}
