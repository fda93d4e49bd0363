// SPDX-License-Identifier: MIT
//
// SECURITY.md [F1]: lowering `access-control` in keychaind.conf and restarting does not
// lower it. The keyring keeps the mode; keychaind runs in the higher one and says so in its
// log and the audit log; `keychainctl access mode off` with the keyring's password lowers it,
// recorded before the log stops.

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct AccessModeTests {
  @Test func aLowerModeInTheConfigurationStaysHigherUntilLoweredWithThePassword() async throws {
    let setup = try await AccessControlTests.Setup(confirmations: [.cancel])
    try setup.store("s3cret")
    // keychaind.conf edited to off, keychaind killed and started again.
    let conf = setup.daemon.home.path + "/.config/keychaind/keychaind.conf"
    try "access-control = off\n".write(toFile: conf, atomically: true, encoding: .utf8)
    setup.daemon.kill(with: SIGKILL)
    try await setup.daemon.start()
    #expect(
      setup.daemon.log.contains("keychaind.conf asks for off, but the keyring was set to protect"),
      "\(setup.daemon.log)")
    // Still protect: another program is asked (and denied).
    #expect(try setup.lookup(by: setup.copy).stdout.isEmpty)
    #expect(setup.pinentry.confirmations == 1)
    let shown = try setup.keychainctl(["access", "mode"])
    #expect(shown.stdout.contains("access-control: protect"), "\(shown.stdout)\(shown.stderr)")
    #expect(shown.stdout.contains("keychaind.conf asks for: off"), "\(shown.stdout)")
    _ = try await setup.decisions(["mode denied": 1])
    // Lowering needs the password; with it, it is recorded, then the log stops.
    let refused = try setup.keychainctl(
      ["access", "mode", "off", "--password-stdin"], stdin: "wrong\n")
    #expect(refused.status != 0, "\(refused.stdout)")
    let lowered = try setup.keychainctl(
      ["access", "mode", "off", "--password-stdin"], stdin: "test password\n")
    #expect(lowered.status == 0, "\(lowered.stderr)\n\(setup.daemon.log)")
    let records = try await setup.audit { records in
      records.contains { $0["op"] as? String == "mode" && $0["decision"] as? String == "allowed" }
    }
    let record = records.last { $0["op"] as? String == "mode" }
    #expect(record?["detail"] as? String == "protect → off", "\(records)")
    #expect(try setup.lookup(by: setup.copy).stdout == "s3cret")
    setup.daemon.kill(with: SIGTERM)
    try await setup.daemon.start()
    #expect(try setup.lookup(by: setup.copy).stdout == "s3cret")
    #expect(setup.pinentry.confirmations == 1)
  }

  /// Raised by keychainctl: keychaind.conf is written, and the mode shown says so at once
  /// (it said the file asked for less, and how to lower it, until the next start).
  @Test func aModeRaisedByKeychainctlIsShownAsTheConfiguredOne() async throws {
    let setup = try await AccessControlTests.Setup(configuration: "")
    let raised = try setup.keychainctl(["access", "mode", "protect"])
    #expect(raised.status == 0, "\(raised.stderr)")
    let conf = setup.daemon.home.path + "/.config/keychaind/keychaind.conf"
    #expect(try String(contentsOfFile: conf, encoding: .utf8).contains("access-control = protect"))
    let shown = try setup.keychainctl(["access", "mode"]).stdout
    #expect(shown.contains("access-control: protect"), "\(shown)")
    #expect(shown.contains("keychaind.conf asks for: protect"), "\(shown)")
    #expect(!shown.contains("asks for less"), "\(shown)")
  }

  /// The plain copy of the kept mode lowered in the database itself (not through keychaind):
  /// the sealed copy, checked at the unlock, puts it back.
  @Test func aKeptModeLoweredInTheDatabaseComesBackAtTheUnlock() async throws {
    let setup = try await AccessControlTests.Setup(confirmations: [.cancel])
    try setup.store("s3cret")
    setup.daemon.kill(with: SIGTERM)
    let database = setup.daemon.home.path + "/.local/share/keychaind/keychain.db"
    let conf = setup.daemon.home.path + "/.config/keychaind/keychaind.conf"
    try "access-control = audit\n".write(toFile: conf, atomically: true, encoding: .utf8)
    let edited = try runCommand(
      "/usr/bin/python3",
      [
        "-c",
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
          + "c.execute(\"UPDATE meta SET value = CAST('audit' AS BLOB) WHERE name = 'access-mode'\"); c.commit()",
        database,
      ])
    #expect(edited.status == 0, "\(edited.stderr)")
    try await setup.daemon.start()
    // Calls wait for --unlock, which finds the sealed copy: another program is asked again.
    #expect(try setup.lookup(by: setup.copy).stdout.isEmpty)
    #expect(setup.pinentry.confirmations == 1)
    #expect(
      setup.daemon.log.contains("was lowered to audit outside keychaind"), "\(setup.daemon.log)")
  }
}
