// SPDX-License-Identifier: MIT
//
// The same-user review's tricks on identity (SECURITY.md, "Same-user processes"), played for real against the
// release keychaind in `protect`, with a scripted pinentry that denies every dialog: each one
// must end in a dialog (denied: nothing read), never in a read as the program posed as. Each
// test first shows the honest reader getting its item without a dialog, so that a denial means
// the trick was seen, not that nothing worked. The in-memory counterparts, one per kernel
// fact, are `IdentityTrickTests`.

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct AccessTrickTests {
  typealias Setup = AccessControlTests.Setup

  func run(_ setup: Setup, _ executable: String, _ arguments: [String], stdin: String = "")
    throws -> String
  {
    let result = try setup.daemon.run(
      executable, arguments, stdin: Array(stdin.utf8), environment: AccessControlTests.display)
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  func descriptions(_ setup: Setup) -> [String] {
    setup.pinentry.log.filter { $0.hasPrefix("SETDESC") }
  }

  /// E1: a program in a mount namespace of its own (bwrap) puts dash at /usr/bin/find, whose
  /// item (stored by secret-tool run by find) it then asks for.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap")))
  func aProgramInAMountNamespaceOfItsOwnIsNotTheProgramAtItsPath() async throws {
    let setup = try await Setup(confirmations: [.cancel])
    let viaFind = ["/etc/hostname", "-exec", "secret-tool"]
    _ = try run(
      setup, "/usr/bin/find", viaFind + ["store", "--label=Backup", "service", "backup", ";"],
      stdin: "backup-PASS")
    #expect(
      try run(setup, "/usr/bin/find", viaFind + ["lookup", "service", "backup", ";"])
        == "backup-PASS")
    #expect(setup.pinentry.confirmations == 0)
    let forged = try run(
      setup, "/usr/bin/bwrap",
      [
        "--dev-bind", "/", "/", "--ro-bind", "/bin/dash", "/usr/bin/find", "/usr/bin/find", "-c",
        "secret-tool lookup service backup",
      ])
    #expect(forged.isEmpty, "\(forged)")
    #expect(setup.pinentry.confirmations == 1)
    #expect(
      descriptions(setup).last?.contains("namespace of its own") == true, "\(descriptions(setup))")
  }

  /// E2: a token stored from a terminal tab is that tab's; one's own tmux, a parent renamed
  /// `sshd`, and a copy of dash named `xterm` are all asked.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
  func aTerminalTabOwnsWhatItStoredAndNoTrickTakesItsPlace() async throws {
    let setup = try await Setup(confirmations: [.cancel, .cancel, .cancel])
    let environment = setup.daemon.environment.merging(AccessControlTests.display) { $1 }
    let tab = try TmuxTerminal(running: "sh", environment: environment)
    _ = try await tab.run("printf gh-TOKEN | secret-tool store --label=Token service gh")
    #expect(try await tab.run("secret-tool lookup service gh") == "gh-TOKEN")
    #expect(setup.pinentry.confirmations == 0)
    // One's own tmux: a terminal, but another tab.
    let own = try TmuxTerminal(running: "sh", environment: environment)
    #expect(try await own.run("secret-tool lookup service gh").isEmpty)
    #expect(setup.pinentry.confirmations == 1)
    // A parent that calls itself sshd.
    let spoof = setup.daemon.home.path + "/spoof.py"
    try """
    import ctypes, subprocess
    ctypes.CDLL(None).prctl(15, b"sshd", 0, 0, 0)  # PR_SET_NAME
    print(subprocess.run(["secret-tool", "lookup", "service", "gh"],
                         capture_output=True).stdout.decode())
    """.write(toFile: spoof, atomically: true, encoding: .utf8)
    #expect(try run(setup, "/usr/bin/python3", [spoof]).isEmpty)
    #expect(setup.pinentry.confirmations == 2)
    // dash, copied under a terminal's name.
    let xterm = setup.daemon.home.path + "/xterm"
    _ = try runCommand("/bin/cp", ["/bin/dash", xterm])
    #expect(try run(setup, xterm, ["-c", "secret-tool lookup service gh"]).isEmpty)
    #expect(setup.pinentry.confirmations == 3)
    let records = try await setup.audit { $0.contains { $0["decision"] as? String == "owner" } }
    let owner = records.first { $0["op"] as? String == "create" }?["app"] as? [String: Any]
    #expect((owner?["key"] as? String)?.contains("@session:") == true, "\(records)")
  }

  /// E3: a SecretStorage script's item, asked for by code run under its name.
  @Test func aScriptIsNotTakenByOptionsOrARelativePathElsewhere() async throws {
    let setup = try await Setup(confirmations: [.cancel, .cancel, .cancel])
    let home = setup.daemon.home.path
    let reader = """
      import sys, secretstorage
      c = secretstorage.get_default_collection(secretstorage.dbus_init())
      if sys.argv[-1] == "store":
          c.create_item("Mail", {"service": "mail"}, b"s3cret-MAIL")
      else:
          item = next(c.search_items({"service": "mail"}))
          if item.is_locked() and item.unlock():
              print("DISMISSED")
          else:
              print(item.get_secret().decode())
      """
    try reader.write(toFile: home + "/owner.py", atomically: true, encoding: .utf8)
    try reader.write(toFile: home + "/evil.py", atomically: true, encoding: .utf8)
    try FileManager.default.createDirectory(
      atPath: home + "/elsewhere", withIntermediateDirectories: true)
    try reader.write(toFile: home + "/elsewhere/owner.py", atomically: true, encoding: .utf8)
    _ = try run(setup, "/usr/bin/python3", [home + "/owner.py", "store"])
    #expect(try run(setup, "/usr/bin/python3", [home + "/owner.py", "read"]) == "s3cret-MAIL")
    #expect(setup.pinentry.confirmations == 0)
    let code = "exec(open('\(home)/evil.py').read())"
    #expect(
      try run(setup, "/usr/bin/python3", ["-c\(code)", home + "/owner.py", "read"]) == "DISMISSED")
    #expect(
      try run(setup, "/usr/bin/python3", ["-W", home + "/owner.py", home + "/evil.py", "read"])
        == "DISMISSED")
    #expect(
      try run(setup, "/bin/sh", ["-c", "cd \(home)/elsewhere && /usr/bin/python3 owner.py read"])
        == "DISMISSED")
    #expect(setup.pinentry.confirmations == 3)
  }

  /// E4: a program the user can change stored an item; replaced (a byte appended), it is
  /// asked, and the dialog says it changed.
  @Test func aReplacedProgramInHomeIsAsked() async throws {
    let setup = try await Setup(confirmations: [.cancel])
    let app = setup.daemon.home.path + "/app"
    _ = try runCommand("/bin/cp", ["/usr/bin/secret-tool", app])
    _ = try run(setup, app, ["store", "--label=App", "service", "app"], stdin: "app-TOKEN")
    #expect(try run(setup, app, ["lookup", "service", "app"]) == "app-TOKEN")
    #expect(setup.pinentry.confirmations == 0)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: app))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("X".utf8))
    try handle.close()
    #expect(try run(setup, app, ["lookup", "service", "app"]).isEmpty)
    #expect(setup.pinentry.confirmations == 1)
    #expect(
      descriptions(setup).last?.contains("It has changed since you allowed it") == true,
      "\(descriptions(setup))")
  }

  /// E8, a documented limit: the bus lets its own uid monitor it, so a program of the user
  /// sees what a `plain` session carries. (DH sessions carry ciphertext.)
  @Test func aMonitorOfTheBusSeesAPlainSession() async throws {
    let setup = try await Setup()
    let capture = setup.daemon.home.path + "/monitor.txt"
    let monitor = try ChildProcess(
      "/usr/bin/dbus-monitor", ["--session"], environment: setup.daemon.environment,
      stdoutFile: capture, stderrFile: capture)
    defer {
      monitor.signal(SIGTERM)
      _ = monitor.wait(timeout: .seconds(10))
    }
    var text = ""
    for _ in 0..<500 {  // until the monitor is attached: a bound, not a speed check
      text = (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
      if text.contains("NameAcquired") || text.contains("monitor") { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    let script = """
      from jeepney import DBusAddress, new_method_call
      from jeepney.io.blocking import open_dbus_connection
      c = open_dbus_connection("SESSION")
      s = DBusAddress("/org/freedesktop/secrets", "org.freedesktop.secrets",
                      "org.freedesktop.Secret.Service")
      session = c.send_and_get_reply(new_method_call(s, "OpenSession", "sv", ("plain", ("s", "")))).body[1]
      coll = DBusAddress("/org/freedesktop/secrets/aliases/default", "org.freedesktop.secrets",
                         "org.freedesktop.Secret.Collection")
      c.send_and_get_reply(new_method_call(coll, "CreateItem", "a{sv}(oayays)b", (
          {"org.freedesktop.Secret.Item.Label": ("s", "Plain")},
          (session, b"", b"plain-SECRET-xyz", "text/plain"), True)))
      """
    _ = try run(setup, "/usr/bin/python3", ["-c", script])
    for _ in 0..<500 {
      text = (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
      if text.contains("plain-SECRET-xyz") { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(
      text.contains("plain-SECRET-xyz"), "the monitor saw no plain secret: \(text.suffix(500))")
  }
}
