// SPDX-License-Identifier: MIT
//
// Login unlock through gnome-keyring's control protocol, as pam_gnome_keyring.so speaks it:
// the real keychaind listening at $XDG_RUNTIME_DIR/keyring/control, and this project's own
// control client (KeyringControl, the one `--replace` uses against gnome-keyring) sending
// UNLOCK, CHANGE and QUIT, and packets that break the protocol.

import Foundation
import KeychainTesting
import KeyringControl
import Testing

struct ControlSocketTests {
  static func socket(_ daemon: DaemonProcess) -> String {
    daemon.environment["XDG_RUNTIME_DIR"]! + "/keyring/control"
  }

  static func send(_ daemon: DaemonProcess, _ operation: ControlOperation, _ arguments: [String])
    throws -> ControlResult
  {
    try ControlClient.send(
      ControlPacket.request(operation, arguments.map { Array($0.utf8) }), to: socket(daemon)
    ).result
  }

  /// What `keychainctl status --json` says of the login collection's lock.
  static func loginLocked(_ daemon: DaemonProcess) throws -> Bool? {
    try collectionLocked(daemon, "login")
  }

  /// What `keychainctl status --json` says of the lock of the collection called `name`.
  static func collectionLocked(_ daemon: DaemonProcess, _ name: String) throws -> Bool? {
    let status = try daemon.run(KeychainctlTests.keychainctl, ["status", "--json"])
    let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
    let collections = object?["collections"] as? [[String: Any]] ?? []
    return collections.first { ($0["path"] as? String)?.hasSuffix("/" + name) == true }?["locked"]
      as? Bool
  }

  /// Waits until the daemon listens (it starts the server once it serves the bus).
  static func waitForSocket(_ daemon: DaemonProcess) async throws {
    for _ in 0..<500 where !FileManager.default.fileExists(atPath: socket(daemon)) {
      try await Task.sleep(for: .milliseconds(20))  // a bound, not a speed check
    }
  }

  @Test func pamsUnlockCreatesThenUnlocksAndAWrongPasswordIsDenied() async throws {
    let daemon = try await DaemonProcess(password: nil)
    try await Self.waitForSocket(daemon)
    let attributes = try FileManager.default.attributesOfItem(atPath: Self.socket(daemon))
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    // The first login creates the login collection with that password, as gnome-keyring does.
    #expect(try Self.send(daemon, .unlock, ["login pw"]) == .ok)
    #expect(try Self.loginLocked(daemon) == false)
    let stored = try daemon.run(
      "secret-tool", ["store", "--label=Mail", "app", "mail"], stdin: Array("kept".utf8))
    #expect(stored.status == 0, "\(stored.stderr)")

    // A later boot: locked until PAM's UNLOCK; a wrong password is DENIED and changes no byte.
    _ = daemon.kill(with: SIGTERM)
    try await daemon.start()
    try await Self.waitForSocket(daemon)
    #expect(try Self.loginLocked(daemon) == true)
    let data = daemon.environment["XDG_DATA_HOME"]! + "/keychaind"
    let before = try FileManager.default.contentsOfDirectory(atPath: data).sorted().map {
      try Data(contentsOf: URL(fileURLWithPath: data + "/" + $0))
    }
    #expect(try Self.send(daemon, .unlock, ["wrong"]) == .denied)
    let after = try FileManager.default.contentsOfDirectory(atPath: data).sorted().map {
      try Data(contentsOf: URL(fileURLWithPath: data + "/" + $0))
    }
    #expect(before == after)
    #expect(try Self.loginLocked(daemon) == true)
    #expect(try Self.send(daemon, .unlock, ["login pw"]) == .ok)
    #expect(try Self.loginLocked(daemon) == false)
    #expect(try daemon.run("secret-tool", ["lookup", "app", "mail"]).stdout == "kept")
    #expect(daemon.log.contains("unlocked the login collection through the control socket"))
    #expect(!daemon.log.contains("login pw"), "no password in the log")
  }

  @Test func passwdReKeysAndQuitStops() async throws {
    let daemon = try await DaemonProcess(password: "old pw")
    try await Self.waitForSocket(daemon)
    #expect(try Self.send(daemon, .change, ["not it", "new pw"]) == .denied)
    #expect(try Self.send(daemon, .change, ["old pw", "new pw"]) == .ok)
    let locked = try daemon.run(KeychainctlTests.keychainctl, ["lock", "--collection", "Login"])
    #expect(locked.status == 0)
    #expect(try Self.send(daemon, .unlock, ["old pw"]) == .denied)
    #expect(try Self.send(daemon, .unlock, ["new pw"]) == .ok)
    // QUIT: answered, then keychaind stops cleanly and removes its socket.
    #expect(try Self.send(daemon, .quit, []) == .ok)
    for _ in 0..<500 where daemon.isRunning { try await Task.sleep(for: .milliseconds(20)) }
    #expect(!daemon.isRunning)
    #expect(!FileManager.default.fileExists(atPath: Self.socket(daemon)))
  }

  /// As the user manager does with data/keychaind-control.socket: the socket exists before
  /// keychaind, and the first packet (PAM's UNLOCK at login) starts it with the socket.
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate"),
      "systemd-socket-activate is not installed"))
  func socketActivationHandsKeychaindTheSocket() async throws {
    let bus = try PrivateBus()
    let home = try TemporaryDirectory(prefix: "socket-activation")
    var environment = bus.environment(home: home.path)
    environment["PINENTRY"] = "none"
    let runtime = environment["XDG_RUNTIME_DIR"]!
    try FileManager.default.createDirectory(
      atPath: runtime + "/keyring", withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    let path = runtime + "/keyring/control"
    // systemd-socket-activate passes on only the variables named (the sanitizers' options too,
    // under `make sanitize`).
    let passed = [
      "DBUS_SESSION_BUS_ADDRESS", "HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR",
      "PINENTRY", "ASAN_OPTIONS", "UBSAN_OPTIONS",
    ].filter { environment[$0] != nil }.flatMap { ["-E", $0] }
    let log = home.path + "/keychaind.log"
    let activator = try ChildProcess(
      "/usr/bin/systemd-socket-activate",
      ["-l", path] + passed + [Binaries.keychaind, "--verbose"], environment: environment,
      stderrFile: log)
    for _ in 0..<500 where !FileManager.default.fileExists(atPath: path) {
      try await Task.sleep(for: .milliseconds(20))  // a bound, not a speed check
    }
    // The socket's file appears when it is bound, a moment before it listens: until then the
    // first packet is refused (ECONNREFUSED), and sent again.
    let packet = ControlPacket.request(.unlock, [Array("login pw".utf8)])
    var reply = try? ControlClient.send(packet, to: path)
    for _ in 0..<100 where reply == nil {
      try await Task.sleep(for: .milliseconds(20))  // a bound, not a speed check
      reply = try? ControlClient.send(packet, to: path)
    }
    let unlocked = try reply ?? ControlClient.send(packet, to: path)
    #expect(unlocked.result == .ok)
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    #expect(text.contains("listening at \(path) (from systemd)"), "\(text)")
    let stored = try runCommand(
      "/usr/bin/secret-tool", ["store", "--label=Mail", "app", "mail"], environment: environment,
      stdin: Array("kept".utf8))
    #expect(stored.status == 0, "\(stored.stderr)")
    activator.signal(SIGTERM)
    #expect(activator.wait() == 0)
  }

  @Test func packetsOutsideTheProtocolAreRefusedWithoutHarm() async throws {
    let daemon = try await DaemonProcess()
    try await Self.waitForSocket(daemon)
    let path = Self.socket(daemon)
    // An oversized length, a truncated packet, an unknown operation, a missing argument.
    for packet: [UInt8] in [
      [0x00, 0x10, 0x00, 0x00, 0, 0, 0, 1],
      [0, 0, 0, 100, 0, 0, 0, 1, 0, 0],
      ControlPacket.request(.unlock, []).dropLast(0).map { $0 },
      [0, 0, 0, 8, 0, 0, 0, 9],
    ] {
      let result = try? ControlClient.send(packet, to: path)
      #expect(result?.result != .ok)
    }
    #expect(daemon.isRunning)
    #expect(try Self.send(daemon, .unlock, ["test password"]) == .ok)
  }
}
