// SPDX-License-Identifier: MIT
//
// Moving from `audit` to `protect`: items stored before access
// control have no owner; a learning period sees which programs read them; `learn --apply`
// grants exactly those reads, turns `protect` on and keeps it in keychaind.conf, and then the
// same programs read with no dialog while any other is refused. The real binary, secret-tool,
// a copy of it, and a SecretStorage script.

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct AccessLearnTests {
  typealias Setup = AccessControlTests.Setup

  /// A SecretStorage client, as python-keyring uses it: search, unlock if locked, read.
  static let script = """
    import sys, secretstorage
    conn = secretstorage.dbus_init()
    item = next(secretstorage.get_default_collection(conn).search_items({"service": sys.argv[1]}))
    if item.is_locked() and item.unlock():
        sys.exit("dismissed")
    print(item.get_secret().decode())
    """

  func read(_ service: String, by tool: String, _ setup: Setup, display: Bool = true) throws
    -> CommandResult
  {
    let environment = display ? AccessControlTests.display : [:]
    guard tool.hasSuffix(".py") else {
      return try setup.daemon.run(tool, ["lookup", "service", service], environment: environment)
    }
    return try setup.daemon.run(
      "/usr/bin/python3", [tool, service], environment: environment)
  }

  @Test func learningGrantsExactlyThePeriodsReadsAndTurnsProtectOn() async throws {
    // Two items from before access control: no owner.
    let setup = try await Setup(configuration: "access-control = off\n")
    try setup.store("mail secret")
    let chat = try setup.daemon.run(
      "secret-tool", ["store", "--label=Chat", "service", "chat"], stdin: Array("chat secret".utf8))
    #expect(chat.status == 0, "\(chat.stderr)")
    let home = setup.daemon.home.path
    let (b, st3) = (home + "/b.py", home + "/st3")
    try Self.script.write(toFile: b, atomically: true, encoding: .utf8)
    try FileManager.default.copyItem(atPath: "/usr/bin/secret-tool", toPath: st3)
    let configuration = home + "/.config/keychaind/keychaind.conf"
    try "# the user's own note\naccess-control = audit\n\npinentry = \(setup.pinentry.program)\n"
      .write(toFile: configuration, atomically: true, encoding: .utf8)
    setup.daemon.kill(with: SIGTERM)
    try await setup.daemon.start()

    // A read before the period is not learnt.
    #expect(try read("mail", by: st3, setup).stdout == "mail secret")
    let started = try setup.keychainctl(["access", "learn", "--for", "1m"])
    #expect(started.status == 0, "\(started.stderr)")
    #expect(started.stdout.contains("keychainctl access learn --apply"), "\(started.stdout)")
    #expect(try read("mail", by: "secret-tool", setup).stdout == "mail secret")
    #expect(try read("chat", by: b, setup).stdout == "chat secret\n")
    #expect(try read("mail", by: setup.copy, setup).stdout == "mail secret")
    _ = try await setup.decisions(["read would-ask": 4])

    let status = try setup.keychainctl(["access", "learn", "--status"])
    #expect(status.stdout.contains("mode: audit"), "\(status.stdout)")
    #expect(status.stdout.contains("(running)"), "\(status.stdout)")
    let listed = status.stdout.split(separator: "\n").filter { $0.hasSuffix(": 1 item(s)") }
    #expect(listed.count == 3, "\(status.stdout)")
    #expect(listed.contains { $0.contains("exe:/usr/bin/secret-tool@") }, "\(listed)")
    #expect(listed.contains { $0.contains("b.py") }, "\(listed)")
    #expect(listed.contains { $0.contains("exe:\(setup.copy)") }, "\(listed)")
    #expect(!status.stdout.contains(st3), "a read before the period was learnt")

    // Without the password nothing changes; with it, the grants and the mode.
    let refused = try setup.keychainctl(["access", "learn", "--apply"])
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("needs your keyring password"), "\(refused.stderr)")
    #expect(try setup.keychainctl(["access", "list", "--json"]).stdout.contains("\"audit\""))
    let applied = try setup.keychainctl(
      ["access", "learn", "--apply", "--password-stdin"], stdin: "test password\n")
    #expect(applied.status == 0, "\(applied.stderr)\n\(setup.daemon.log)")
    #expect(applied.stdout.contains("3 grant(s) made"), "\(applied.stdout)")
    #expect(applied.stdout.contains("written to \(configuration)"), "\(applied.stdout)")
    let kept = try String(contentsOfFile: configuration, encoding: .utf8)
    #expect(
      kept
        == "# the user's own note\naccess-control = protect\n\npinentry = \(setup.pinentry.program)\n",
      "\(kept)")
    let grants = try setup.keychainctl(["access", "list"]).stdout
    #expect(grants.contains("mode: protect"), "\(grants)")
    #expect(grants.components(separatedBy: "(by learn").count == 4, "\(grants)")

    // protect is on at once and after a restart: the learnt programs read without a dialog,
    // the one seen only before the period is refused.
    for round in 0..<2 {
      #expect(try read("mail", by: "secret-tool", setup).stdout == "mail secret", "round \(round)")
      #expect(try read("chat", by: b, setup).stdout == "chat secret\n", "round \(round)")
      #expect(try read("mail", by: setup.copy, setup).stdout == "mail secret", "round \(round)")
      let other = try read("mail", by: st3, setup, display: false)
      #expect(other.stdout.isEmpty, "round \(round)")
      #expect(other.stderr.contains("keychainctl access allow"), "\(other.stderr)")
      #expect(setup.pinentry.confirmations == 0)
      if round == 0 {
        setup.daemon.kill(with: SIGTERM)
        try await setup.daemon.start()
      }
    }
    let after = try setup.keychainctl(["access", "learn", "--status"])
    #expect(after.stdout.contains("no learning period"), "\(after.stdout)")
    let modes = try await setup.decisions(["mode allowed": 1])
    #expect(modes.contains("mode allowed"), "\(modes)")
    let again = try setup.keychainctl(["access", "learn", "--for", "1m"])
    #expect(again.status != 0)
    #expect(again.stderr.contains("keychaind is in protect"), "\(again.stderr)")
  }

  @Test func applyLeavesOutTheApplicationsNamedWithExcept() async throws {
    let setup = try await Setup(configuration: "access-control = off\n")
    try setup.store("mail secret")
    // keychaind.conf as a dotfile manager keeps it: a link to a file elsewhere.
    let configuration = setup.daemon.home.path + "/.config/keychaind/keychaind.conf"
    let kept = setup.daemon.home.path + "/dotfiles-keychaind.conf"
    try "access-control = audit\n".write(toFile: kept, atomically: true, encoding: .utf8)
    try FileManager.default.removeItem(atPath: configuration)
    try FileManager.default.createSymbolicLink(atPath: configuration, withDestinationPath: kept)
    setup.daemon.kill(with: SIGTERM)
    try await setup.daemon.start()
    #expect(try setup.keychainctl(["access", "learn", "--for", "1h"]).status == 0)
    #expect(try read("mail", by: setup.copy, setup).stdout == "mail secret")
    _ = try await setup.decisions(["read would-ask": 1])
    // Its only reader left out, there is nothing to grant: no password is asked.
    let applied = try setup.keychainctl(["access", "learn", "--apply", "--except", setup.copy])
    #expect(applied.status == 0, "\(applied.stderr)")
    #expect(applied.stdout.contains("0 grant(s) made"), "\(applied.stdout)")
    #expect(applied.stdout.contains("left out: 1 read(s)"), "\(applied.stdout)")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: configuration) == kept)
    #expect(try String(contentsOfFile: kept, encoding: .utf8) == "access-control = protect\n")
    let other = try read("mail", by: setup.copy, setup, display: false)
    #expect(other.stdout.isEmpty, "protect is on and the copy was not granted")
    #expect(other.stderr.contains("keychainctl access allow"), "\(other.stderr)")
  }

  @Test func aLineAddedToTheAuditLogIsNotLearnt() async throws {
    let setup = try await Setup(configuration: "access-control = off\n")
    try setup.store("mail secret")
    try "access-control = audit\n".write(
      toFile: setup.daemon.home.path + "/.config/keychaind/keychaind.conf", atomically: true,
      encoding: .utf8)
    setup.daemon.kill(with: SIGTERM)
    try await setup.daemon.start()
    #expect(try read("mail", by: setup.copy, setup).stdout == "mail secret")
    _ = try await setup.decisions(["read would-ask": 1])
    // The same read, claimed for another program: a line the chain does not vouch for.
    let path = setup.auditDirectory + "/audit.jsonl"
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let line = try #require(text.split(separator: "\n").last { $0.contains("would-ask") })
    try (text + line.replacingOccurrences(of: setup.copy, with: "/tmp/evil") + "\n")
      .write(toFile: path, atomically: false, encoding: .utf8)
    let learnt = try setup.keychainctl(["access", "learn", "--dry-run"])
    #expect(learnt.status != 0)
    #expect(learnt.stderr.contains("the audit log was changed"), "\(learnt.stderr)")
    #expect(!learnt.stdout.contains("/tmp/evil"))
    let odd = try setup.keychainctl(["access", "learn", "--for", "7 days"])
    #expect(odd.status != 0)
    #expect(odd.stderr.contains("--for takes a length such as 90s"), "\(odd.stderr)")
  }
}
