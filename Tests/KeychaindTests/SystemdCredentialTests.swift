// SPDX-License-Identifier: MIT
//
// systemd credentials from the keyring, through the binaries: a unit granted an item as a
// credential gets its secret when it connects as systemd's service manager connects
// (Tests/clients/systemd-credential.py, which takes the address format from the installed
// systemd); any other unit or credential id, or a locked collection, gets nothing, which
// systemd takes as a missing credential.

import Foundation
import KeychainTesting
import KeyringControl
import Testing

@Suite(
  .enabled(
    if: !FileManager.default.contentsOfDirectory(atPathOrEmpty: "/usr/lib/x86_64-linux-gnu/systemd")
      .filter { $0.hasPrefix("libsystemd-core-") }.isEmpty,
    "systemd (libsystemd-core) is not installed"),
  .readsAnotherProgramsItems)
struct SystemdCredentialTests {
  private static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("clients/systemd-credential.py").path

  private func ctl(_ daemon: DaemonProcess, _ arguments: [String], _ stdin: String = "") throws
    -> CommandResult
  {
    try daemon.run(Binaries.keychainctl, arguments, stdin: Array(stdin.utf8))
  }

  /// What a unit reads, connecting as systemd does.
  private func load(_ daemon: DaemonProcess, unit: String, id: String) throws -> CommandResult {
    let socket = daemon.environment["XDG_RUNTIME_DIR"]! + "/keychaind/credentials"
    return try runCommand("/usr/bin/python3", [Self.client, socket, unit, id])
  }

  @Test func aGrantedUnitGetsItsCredentialAndNoOtherDoes() async throws {
    let daemon = try await DaemonProcess()
    let secret = "restic-\(UInt64.random(in: 1_000_000...9_999_999))"
    #expect(try ctl(daemon, ["store", "--label=Restic", "service", "restic"], secret).status == 0)
    let found = try ctl(daemon, ["search", "--json", "service", "restic"])
    let items = try #require(
      try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [[String: Any]])
    let path = try #require(items.first?["path"] as? String, "\(found.stdout)")

    // Nothing before the grant.
    #expect(try load(daemon, unit: "backup.service", id: "restic-password").stdout == "")
    let allow = [
      "access", "allow", "--unit", "backup.service", "--credential", "restic-password", path,
      "--password-stdin",
    ]
    #expect(try ctl(daemon, allow, "wrong password\n").status == 1)
    let allowed = try ctl(daemon, allow, "test password\n")
    #expect(allowed.status == 0, "\(allowed.stderr)")

    let loaded = try load(daemon, unit: "backup.service", id: "restic-password")
    #expect(loaded.status == 0, "\(loaded.stderr)")
    #expect(loaded.stdout == secret)
    // Another unit, another id: nothing.
    #expect(try load(daemon, unit: "other.service", id: "restic-password").stdout == "")
    #expect(try load(daemon, unit: "backup.service", id: "other").stdout == "")
    // Locked: nothing, until it is unlocked again.
    #expect(try ctl(daemon, ["lock"]).status == 0)
    #expect(try load(daemon, unit: "backup.service", id: "restic-password").stdout == "")
    #expect(try ctl(daemon, ["unlock", "--password-stdin"], "test password\n").status == 0)
    #expect(try load(daemon, unit: "backup.service", id: "restic-password").stdout == secret)
    // Revoked: nothing.
    let revoke = ["access", "revoke", "--app", "unit:backup.service", path]
    #expect(try ctl(daemon, revoke).status == 0)
    #expect(try load(daemon, unit: "backup.service", id: "restic-password").stdout == "")

    // Bad input is named.
    let badUnit = try ctl(
      daemon,
      ["access", "allow", "--unit", "no unit", "--credential", "x", path, "--password-stdin"],
      "test password\n")
    #expect(badUnit.status == 1 && badUnit.stderr.contains("no systemd unit name"))
    #expect(try ctl(daemon, ["access", "allow", "--unit", "a.service", path]).status == 64)

    var info = stat()
    #expect(stat(daemon.environment["XDG_RUNTIME_DIR"]! + "/keychaind", &info) == 0)
    #expect(info.st_mode & 0o777 == 0o700)
    #expect(daemon.log.contains("credentials: gave backup.service its credential restic-password"))
    #expect(!daemon.log.contains(secret))
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }
}

/// As the user manager does with data/keychaind-control.socket and
/// data/keychaind-credentials.socket, both enabled: keychaind starts with both sockets, named,
/// and serves each on the socket it is given.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate"),
    "systemd-socket-activate is not installed"),
  .readsAnotherProgramsItems)
struct CredentialSocketActivationTests {
  @Test func keychaindTakesBothOfItsSocketsByName() async throws {
    let bus = try PrivateBus()
    let home = try TemporaryDirectory(prefix: "credential-activation")
    var environment = bus.environment(home: home.path)
    environment["PINENTRY"] = "none"
    let runtime = environment["XDG_RUNTIME_DIR"]!
    for directory in ["/keyring", "/keychaind"] {
      try FileManager.default.createDirectory(
        atPath: runtime + directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    }
    let (control, credentials) = (runtime + "/keyring/control", runtime + "/keychaind/credentials")
    let passed = [
      "DBUS_SESSION_BUS_ADDRESS", "HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR",
      "XDG_STATE_HOME", "PINENTRY", "ASAN_OPTIONS", "UBSAN_OPTIONS",
    ].filter { environment[$0] != nil }.flatMap { ["-E", $0] }
    let log = home.path + "/keychaind.log"
    let activator = try ChildProcess(
      "/usr/bin/systemd-socket-activate",
      ["-l", control, "-l", credentials, "--fdname=control:credentials"] + passed
        + [Binaries.keychaind, "--verbose"], environment: environment, stderrFile: log)
    try activator.waitUntil(
      { FileManager.default.fileExists(atPath: credentials) },
      log: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    // The first packet starts keychaind (refused while the socket is bound but not listening).
    let packet = ControlPacket.request(.unlock, [Array("login pw".utf8)])
    var reply = try? ControlClient.send(packet, to: control)
    for _ in 0..<100 where reply == nil {
      try await Task.sleep(for: .milliseconds(20))  // a bound, not a speed check
      reply = try? ControlClient.send(packet, to: control)
    }
    #expect(try (reply ?? ControlClient.send(packet, to: control)).result == .ok)

    let stored = try runCommand(
      "/usr/bin/secret-tool", ["store", "--label=Restic", "service", "restic"],
      environment: environment, stdin: Array("s3cret".utf8))
    #expect(stored.status == 0, "\(stored.stderr)")
    let found = try runCommand(
      Binaries.keychainctl, ["search", "--json", "service", "restic"], environment: environment)
    let items = try #require(
      try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [[String: Any]])
    let path = try #require(items.first?["path"] as? String, "\(found.stdout)")
    let allowed = try runCommand(
      Binaries.keychainctl,
      [
        "access", "allow", "--unit", "backup.service", "--credential", "restic", path,
        "--password-stdin",
      ], environment: environment, stdin: Array("login pw\n".utf8))
    #expect(allowed.status == 0, "\(allowed.stderr)")
    let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("clients/systemd-credential.py").path
    let loaded = try runCommand(
      "/usr/bin/python3", [client, credentials, "backup.service", "restic"])
    #expect(loaded.stdout == "s3cret", "\(loaded.stderr)")
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    #expect(text.contains("listening at \(control) (from systemd)"), "\(text)")
    #expect(text.contains("listening at \(credentials) (from systemd)"), "\(text)")
    activator.signal(SIGTERM)
    #expect(activator.wait() == 0)
  }
}

extension FileManager {
  fileprivate func contentsOfDirectory(atPathOrEmpty path: String) -> [String] {
    (try? contentsOfDirectory(atPath: path)) ?? []
  }
}
