// SPDX-License-Identifier: MIT
//
// Per-application access end to end: the real keychaind in `protect`,
// two different programs (`/usr/bin/secret-tool`, and a copy of it at another path, which is
// another application), a scripted pinentry answering the access dialog, and the audit log.

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct AccessControlTests {
  static let protect = "access-control = protect\n"
  /// A graphical session, where the access dialog can be shown.
  static let display = ["DISPLAY": ":99"]

  /// The daemon, and a copy of secret-tool in its home: the same code at a path the user can
  /// change, so another application.
  struct Setup {
    let daemon: DaemonProcess
    let pinentry: ScriptedPinentry
    var copy: String { daemon.home.path + "/st2" }

    /// `flavour`: by default a pinentry that shows the access dialog's three buttons
    /// (pinentry-gnome3 shows two).
    init(
      configuration: String = protect, confirmations: [ScriptedPinentry.Confirmation] = [],
      flavour: String = "pinentry-gtk-2"
    ) async throws {
      pinentry = try ScriptedPinentry(
        answers: [], confirmations: confirmations, flavour: flavour)
      daemon = try await DaemonProcess(
        pinentry: pinentry.program, configuration: configuration)
      try FileManager.default.copyItem(atPath: "/usr/bin/secret-tool", toPath: copy)
    }

    func store(_ secret: String, label: String = "Mail password", by tool: String = "secret-tool")
      throws
    {
      let stored = try daemon.run(
        tool, ["store", "--label=\(label)", "service", "mail"], stdin: Array(secret.utf8),
        environment: display)
      #expect(stored.status == 0, "\(stored.stderr)\n\(daemon.log)")
    }

    func lookup(by tool: String, environment: [String: String] = display) throws -> CommandResult {
      try daemon.run(tool, ["lookup", "service", "mail"], environment: environment)
    }

    var auditDirectory: String { daemon.home.path + "/.local/state/keychaind" }

    /// The audit log's records as JSON objects, once `done` says they are all there: keychaind
    /// writes them beside the reply, not before it (waits up to 10 s, a bound, not a speed
    /// check).
    func audit(until done: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
      var records: [[String: Any]] = []
      for _ in 0..<500 {
        records = try jsonLines(at: auditDirectory + "/audit.jsonl")
        if done(records) { break }
        try await Task.sleep(for: .milliseconds(20))
      }
      return records
    }

    /// "OP DECISION" of each record once those of `expected` are all there.
    func decisions(_ expected: [String: Int], of app: String? = nil) async throws -> [String] {
      func decisions(_ records: [[String: Any]]) -> [String] {
        records.filter { app == nil || ($0["app"] as? [String: Any])?["key"] as? String == app }
          .map { "\($0["op"]!) \($0["decision"]!)" }
      }
      return decisions(
        try await audit { records in
          let found = decisions(records)
          return expected.allSatisfy { wanted in found.count { $0 == wanted.key } >= wanted.value }
        })
    }

    func keychainctl(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
      try daemon.run(Binaries.keychainctl, arguments, stdin: Array((stdin ?? "").utf8))
    }
  }

  @Test func theCreatorReadsItsOwnItemWithoutADialog() async throws {
    let setup = try await Setup()
    try setup.store("s3cret")
    let found = try setup.lookup(by: "secret-tool")
    #expect(found.stdout == "s3cret", "\(found.stderr)\n\(setup.daemon.log)")
    #expect(setup.pinentry.confirmations == 0)
    let records = try await setup.audit { $0.count >= 2 }
    let ops = records.map { "\($0["op"]!) \($0["decision"]!)" }
    #expect(ops.contains("create owner") && ops.contains("read owner"), "\(ops)")
    let app = records.first?["app"] as? [String: Any]
    #expect((app?["key"] as? String)?.hasPrefix("via:exe:/usr/bin/secret-tool@") == true)
  }

  @Test func anotherProgramIsAskedAndAllowedOnceEachTime() async throws {
    let setup = try await Setup(confirmations: [.ok, .ok])
    try setup.store("s3cret")
    // The copy sees the item as locked, unlocks it through the dialog, then reads it.
    let first = try setup.lookup(by: setup.copy)
    #expect(first.stdout == "s3cret", "\(first.stderr)\n\(setup.daemon.log)")
    #expect(setup.pinentry.confirmations == 1)
    let description = setup.pinentry.log.first { $0.hasPrefix("SETDESC") } ?? ""
    #expect(
      description.contains("st2") && description.contains("“Mail password”"), "\(description)")
    #expect(setup.pinentry.log.contains("SETOK Allow once"))
    #expect(setup.pinentry.log.contains("SETNOTOK Always allow"))
    #expect(setup.pinentry.log.contains("SETCANCEL Deny"))
    // Allow once lasts for that process only.
    #expect(try setup.lookup(by: setup.copy).stdout == "s3cret")
    #expect(setup.pinentry.confirmations == 2)
    let decisions = try await setup.decisions(
      ["read allowed-once": 2], of: "exe:\(setup.copy)")
    #expect(decisions.filter { $0 == "read allowed-once" }.count == 2, "\(decisions)")
  }

  @Test func alwaysAllowIsRememberedAcrossARestartUntilRevoked() async throws {
    let setup = try await Setup(confirmations: [.notOK, .ok])
    try setup.store("s3cret")
    #expect(try setup.lookup(by: setup.copy).stdout == "s3cret")
    #expect(setup.pinentry.confirmations == 1)
    setup.daemon.kill(with: SIGTERM)
    try await setup.daemon.start()
    let again = try setup.lookup(by: setup.copy)
    #expect(again.stdout == "s3cret", "\(again.stderr)\n\(setup.daemon.log)")
    #expect(setup.pinentry.confirmations == 1, "asked again after Always allow")
    let listed = try setup.keychainctl(["access", "list", "--json"])
    #expect(listed.stdout.contains("\"app\" : \"exe:\(setup.copy)\""), "\(listed.stdout)")
    #expect(listed.stdout.contains("\"source\" : \"dialog\""))
    // Revoking needs no password and takes effect at once.
    let revoked = try setup.keychainctl(
      ["access", "revoke", "--app", "exe:\(setup.copy)", "login"])
    #expect(revoked.stdout.contains("1 grant(s) revoked"), "\(revoked.stderr)")
    #expect(try setup.lookup(by: setup.copy).stdout == "s3cret")
    #expect(setup.pinentry.confirmations == 2)
  }

  /// pinentry-gnome3 shows no third button: its dialog offers Allow once and Deny, and says
  /// how to allow the program for good instead.
  @Test func pinentryGnome3SaysHowToAllowForGood() async throws {
    let setup = try await Setup(confirmations: [.ok], flavour: "pinentry-gnome3")
    try setup.store("s3cret")
    #expect(try setup.lookup(by: setup.copy).stdout == "s3cret")
    let log = setup.pinentry.log
    #expect(!log.contains { $0.hasPrefix("SETNOTOK") }, "\(log)")
    let description = log.first { $0.hasPrefix("SETDESC") } ?? ""
    #expect(
      description.contains(
        "To allow it for good: keychainctl access allow --app 'exe:\(setup.copy)' "
          + "/org/freedesktop/secrets/collection/login/1"), "\(description)")
  }

  @Test(.enabled(if: getuid() == 0, "needs a directory only root can write, as /usr/share is"))
  func theDialogNamesAProgramAsTheDesktopsMenuDoes() async throws {
    // A tree only root can write, as /usr is: a script, and the entry that puts it in menus.
    let tree = "/run/keychaind-names.\(UUID().uuidString.prefix(8))"
    defer { try? FileManager.default.removeItem(atPath: tree) }
    for directory in [tree + "/bin", tree + "/share/applications"] {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o755])
    }
    chmod(tree, 0o755)
    let reader = tree + "/bin/mail-reader"
    try AccessLearnTests.script.write(toFile: reader, atomically: false, encoding: .utf8)
    chmod(reader, 0o755)
    try "[Desktop Entry]\nType=Application\nName=Mail Reader\nExec=\(reader) %u\n".write(
      toFile: tree + "/share/applications/mail-reader.desktop", atomically: false,
      encoding: .utf8)
    let pinentry = try ScriptedPinentry(answers: [], confirmations: [.ok])
    let daemon = try await DaemonProcess(
      pinentry: pinentry.program, environment: ["XDG_DATA_DIRS": tree + "/share"],
      configuration: Self.protect)
    let stored = try daemon.run(
      "secret-tool", ["store", "--label=Mail password", "service", "mail"],
      stdin: Array("s3cret".utf8), environment: Self.display)
    #expect(stored.status == 0, "\(stored.stderr)")
    let read = try daemon.run("/usr/bin/python3", [reader, "mail"], environment: Self.display)
    #expect(read.stdout == "s3cret\n", "\(read.stderr)\n\(daemon.log)")
    let description = pinentry.log.first { $0.hasPrefix("SETDESC") } ?? ""
    #expect(description.contains("“Mail Reader”"), "\(description)")
  }

  @Test func aChangedProgramIsAskedAgain() async throws {
    let setup = try await Setup(confirmations: [.notOK, .ok])
    try setup.store("s3cret")
    #expect(try setup.lookup(by: setup.copy).stdout == "s3cret")
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: setup.copy))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data([0]))
    try handle.close()
    #expect(try setup.lookup(by: setup.copy).stdout == "s3cret")
    #expect(setup.pinentry.confirmations == 2)
    #expect(
      setup.pinentry.log.contains { $0.contains("It has changed since you allowed it.") },
      "\(setup.pinentry.log)")
  }

  @Test func aDenialRefusesAndKeepsQuietForAMoment() async throws {
    let setup = try await Setup(confirmations: [.cancel, .ok])
    try setup.store("s3cret")
    let denied = try setup.lookup(by: setup.copy)
    #expect(denied.stdout.isEmpty)
    #expect(setup.pinentry.confirmations == 1)
    // Asked again at once: refused with no dialog.
    let quiet = try setup.lookup(by: setup.copy)
    #expect(quiet.stdout.isEmpty)
    #expect(setup.pinentry.confirmations == 1, "a second dialog within the quiet time")
    let decisions = try await setup.decisions(["read denied": 2])
    #expect(decisions.filter { $0 == "read denied" }.count >= 2, "\(decisions)")
    #expect(setup.daemon.isRunning)
  }

  @Test func aCallerWithNoDisplayGetsTheCommandThatGrantsAccess() async throws {
    let setup = try await Setup()
    try setup.store("s3cret")
    let headless = try setup.lookup(by: setup.copy, environment: [:])
    #expect(headless.stdout.isEmpty)
    #expect(
      headless.stderr.contains("keychainctl access allow --app 'exe:\(setup.copy)'"),
      "\(headless.stderr)")
    #expect(setup.pinentry.confirmations == 0)
    // Granting needs the password; with it, the headless caller reads.
    let refused = try setup.keychainctl(["access", "allow", "--app", setup.copy, "login"])
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("needs your keyring password"), "\(refused.stderr)")
    let wrong = try setup.keychainctl(
      ["access", "allow", "--app", setup.copy, "login", "--password-stdin"], stdin: "wrong\n")
    #expect(wrong.status != 0)
    #expect(wrong.stderr.contains("not the password"), "\(wrong.stderr)")
    // A mistyped item is refused by name: never a grant of every item of its collection.
    let missing = "/org/freedesktop/secrets/collection/login/999"
    let typo = try setup.keychainctl(
      ["access", "allow", "--app", setup.copy, missing, "--password-stdin"],
      stdin: "test password\n")
    #expect(typo.status != 0)
    #expect(typo.stderr.contains("there is no item \(missing)"), "\(typo.stderr)")
    #expect(try setup.keychainctl(["access", "list"]).stdout.contains("grants:\n  none"))
    #expect(try setup.lookup(by: setup.copy, environment: [:]).stdout.isEmpty)
    let revoke = try setup.keychainctl(["access", "revoke", "--app", setup.copy, missing])
    #expect(revoke.stderr.contains("there is no item \(missing)"), "\(revoke.stderr)")
    let allowed = try setup.keychainctl(
      ["access", "allow", "--app", setup.copy, "login", "--password-stdin"],
      stdin: "test password\n")
    #expect(allowed.status == 0, "\(allowed.stderr)")
    #expect(try setup.lookup(by: setup.copy, environment: [:]).stdout == "s3cret")
  }

  @Test func auditModeChangesNoReplyAndLearnTurnsReadsIntoGrants() async throws {
    let setup = try await Setup(configuration: "")
    try setup.store("s3cret")
    #expect(try setup.lookup(by: setup.copy).stdout == "s3cret")
    #expect(setup.pinentry.confirmations == 0)
    let decisions = try await setup.decisions(["read would-ask": 1])
    #expect(decisions.contains("read would-ask"), "\(decisions)")
    let dry = try setup.keychainctl(["access", "learn", "--dry-run"])
    #expect(dry.stdout.contains("exe:\(setup.copy) /org/freedesktop/secrets/collection/login/"))
    let learnt = try setup.keychainctl(
      ["access", "learn", "--password-stdin"], stdin: "test password\n")
    #expect(learnt.stdout.contains("1 grant(s) made"), "\(learnt.stderr)")
    #expect(try setup.keychainctl(["access", "list"]).stdout.contains("(by learn"))
  }

  @Test func auditVerifyFindsAChangedByteAndTheFilesHoldNoSecretOrLabel() async throws {
    let setup = try await Setup(confirmations: [.ok])
    try setup.store("unmistakable-secret-value", label: "Unmistakable Label")
    #expect(try setup.lookup(by: setup.copy).stdout == "unmistakable-secret-value")
    _ = try await setup.decisions(["read allowed-once": 1])
    let intact = try setup.keychainctl(["audit", "verify"])
    #expect(intact.status == 0, "\(intact.stderr)")
    #expect(intact.stdout.contains("audit log intact"))
    let summary = try setup.keychainctl(["audit", "summary"])
    // One line per program, items by label.
    #expect(
      summary.stdout.contains("st2 (at \(setup.copy)): 1 read(s) of 1 item(s)"), "\(summary.stdout)"
    )
    #expect(summary.stdout.contains("“Unmistakable Label” in “Login”"), "\(summary.stdout)")
    let shown = try setup.keychainctl(["audit", "--json", "--app", "exe:\(setup.copy)"])
    #expect(shown.stdout.contains("\"decision\":\"allowed-once\""), "\(shown.stdout)")
    // Nothing under the state and data directories shows the secret, the label or the
    // keyring's password.
    for directory in [setup.auditDirectory, setup.daemon.home.path + "/.local/share"] {
      let files = FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []
      for file in files {
        guard let data = FileManager.default.contents(atPath: directory + "/" + file) else {
          continue
        }
        for needle in ["unmistakable-secret-value", "Unmistakable Label", "test password"] {
          #expect(data.range(of: Data(needle.utf8)) == nil, "\(file) holds \(needle)")
        }
      }
    }
    // One changed byte, the first digit of the reader's pid, leaves a well-formed record; the
    // chain finds it and names its line.
    let path = setup.auditDirectory + "/audit.jsonl"
    var lines = try String(contentsOfFile: path, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false
    ).map(String.init)
    let index = try #require(lines.firstIndex { $0.contains("\"op\":\"read\"") })
    var bytes = Array(lines[index].utf8)
    let pid = try #require(
      bytes.indices.first { bytes[$0...].starts(with: Array("\"pid\":".utf8)) })
    let digit = pid + 6
    bytes[digit] = bytes[digit] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")
    lines[index] = String(decoding: bytes, as: UTF8.self)
    try lines.joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)
    let changed = try setup.keychainctl(["audit", "verify"])
    #expect(changed.status == 1)
    #expect(changed.stderr.contains("audit.jsonl line \(index + 1) "), "\(changed.stderr)")
  }

  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/kwallet-query"),
      "needs libkf5wallet-bin"))
  func aKWalletClientSeesOnlyWhatItOwnsOrWasAllowed() async throws {
    let setup = try await Setup()
    let stored = try setup.daemon.run(
      "secret-tool",
      ["store", "--label", "x", "server", "Mail", "user", "alice", "type", "plaintext"],
      stdin: Array("from libsecret".utf8), environment: AccessControlTests.display)
    #expect(stored.status == 0, "\(stored.stderr)")
    let query = "/usr/bin/kwallet-query"
    let environment = KWalletClientTests.kdeEnvironment(setup.daemon)
    let arguments = ["-f", "Mail", "-r", "alice", "kdewallet"]
    let hidden = try KWalletClientTests.run(query, arguments, environment)
    #expect(!hidden.stdout.contains("from libsecret"), "\(hidden.stdout)")
    // kwallet-query is a front end, so the grant names it together with whoever runs it (this
    // test program): allowing kwallet-query alone would allow every script that runs it.
    let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let allowed = try setup.keychainctl(
      [
        "access", "allow", "--app", "via:exe:\(query)@exe:\(me)", "login", "--password-stdin",
      ], stdin: "test password\n")
    #expect(allowed.status == 0, "\(allowed.stderr)")
    let read = try KWalletClientTests.run(query, arguments, environment)
    #expect(read.stdout == "from libsecret\n", "\(read.stderr)\n\(setup.daemon.log)")
  }
}
