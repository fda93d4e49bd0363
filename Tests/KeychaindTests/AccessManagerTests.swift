// SPDX-License-Identifier: MIT
//
// Keyring managers in `protect` (issue 40): a read with no Unlock of its own, as Seahorse's
// GetSecret and every KWallet read are, brings up the access dialog while the call waits,
// instead of an empty password; with no display, or no dialog program, it is refused and the
// audit log says why (no-display, no-dialog), never "denied" when nobody denied anything. A
// KWallet client lists another program's entries (their names, as the Secret Service shows
// labels), and its refused reads are in the audit log too.

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct AccessManagerTests {
  typealias Setup = AccessControlTests.Setup

  /// GetSecret on each item of `service=mail`, straight, as Seahorse shows a password.
  static let manager = """
    import sys
    from jeepney import DBusAddress, new_method_call
    from jeepney.io.blocking import open_dbus_connection
    c = open_dbus_connection("SESSION")
    s = DBusAddress("/org/freedesktop/secrets", "org.freedesktop.secrets",
                    "org.freedesktop.Secret.Service")
    session = c.send_and_get_reply(new_method_call(s, "OpenSession", "sv", ("plain", ("s", "")))).body[1]
    unlocked, locked = c.send_and_get_reply(new_method_call(s, "SearchItems", "a{ss}", ({"service": "mail"},))).body
    for path in unlocked + locked:
        item = DBusAddress(path, "org.freedesktop.secrets", "org.freedesktop.Secret.Item")
        reply = c.send_and_get_reply(new_method_call(item, "GetSecret", "o", (session,)), timeout=600)
        if reply.header.message_type.name == "error":
            print("ERROR", reply.header.fields.get(4))
        else:
            print("SECRET", bytes(reply.body[0][2]).decode())
    """

  func read(_ setup: Setup, display: Bool = true) throws -> String {
    let script = setup.daemon.home.path + "/manager.py"
    try Self.manager.write(toFile: script, atomically: true, encoding: .utf8)
    let result = try setup.daemon.run(
      "/usr/bin/python3", [script], environment: display ? AccessControlTests.display : [:])
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func aManagersGetSecretAsksInsteadOfShowingAnEmptyPassword() async throws {
    let setup = try await Setup(confirmations: [.ok, .cancel])
    try setup.store("s3cret")
    #expect(try read(setup) == "SECRET s3cret", "\(setup.daemon.log)")
    #expect(setup.pinentry.confirmations == 1)
    // Denied: IsLocked, as before, and the log says the user denied it.
    #expect(try read(setup).contains("IsLocked"))
    #expect(setup.pinentry.confirmations == 2)
    // No display: nobody asked, and the log says so.
    #expect(try read(setup, display: false).contains("IsLocked"))
    #expect(setup.pinentry.confirmations == 2)
    let decisions = try await setup.decisions([
      "read allowed-once": 1, "read denied": 1, "read no-display": 1,
    ])
    #expect(decisions.count { $0 == "read denied" } == 1, "\(decisions)")
  }

  @Test func withNoDialogProgramTheRefusalSaysNobodyWasAsked() async throws {
    let daemon = try await DaemonProcess(configuration: AccessControlTests.protect)
    let stored = try daemon.run(
      "secret-tool", ["store", "--label=Mail", "service", "mail"], stdin: Array("s3cret".utf8))
    #expect(stored.status == 0, "\(stored.stderr)")
    let script = daemon.home.path + "/manager.py"
    try Self.manager.write(toFile: script, atomically: true, encoding: .utf8)
    let read = try daemon.run(
      "/usr/bin/python3", [script], environment: AccessControlTests.display)
    #expect(read.stdout.contains("IsLocked"), "\(read.stdout)\(read.stderr)")
    let path = daemon.home.path + "/.local/state/keychaind/audit.jsonl"
    var records: [[String: Any]] = []
    for _ in 0..<500 {  // a bound, not a speed check
      records = (try? jsonLines(at: path)) ?? []
      if records.contains(where: { $0["decision"] as? String == "no-dialog" }) { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(records.contains { $0["decision"] as? String == "no-dialog" }, "\(records)")
    #expect(!records.contains { $0["decision"] as? String == "denied" }, "\(records)")
  }

  /// kwallet-query (a KF5 KWallet client, as KWalletManager is) lists another program's
  /// entry, and reading it asks.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/kwallet-query")))
  func aKWalletClientListsAnotherProgramsEntryAndItsReadAsks() async throws {
    let setup = try await Setup(confirmations: [.ok, .cancel])
    try await KWalletClientTests.seed(setup.daemon)
    var environment = KWalletClientTests.kdeEnvironment(setup.daemon)
    environment["DISPLAY"] = ":99"
    let query = "/usr/bin/kwallet-query"
    let list = try KWalletClientTests.run(
      query, ["-l", "-f", "Passwords", "kdewallet"], environment)
    #expect(list.stdout == "github\n", "\(list.stdout)\(list.stderr)")
    #expect(setup.pinentry.confirmations == 0)
    let read = try KWalletClientTests.run(
      query, ["-f", "Passwords", "-r", "github", "kdewallet"], environment)
    #expect(read.stdout == "line1\nline2\n", "\(read.stderr)\n\(setup.daemon.log)")
    #expect(setup.pinentry.confirmations == 1)
    let denied = try KWalletClientTests.run(
      query, ["-f", "Passwords", "-r", "github", "kdewallet"], environment)
    #expect(!denied.stdout.contains("line1"), "\(denied.stdout)")
    #expect(setup.pinentry.confirmations == 2)
    _ = try await setup.decisions(["read allowed-once": 1, "read denied": 1])
  }
}
