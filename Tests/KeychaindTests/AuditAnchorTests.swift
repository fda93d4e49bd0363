// SPDX-License-Identifier: MIT
//
// Records cut from either end of the audit log: the store keeps where the chain ended when
// keychaind stopped and where it must start, sealed beside the chain's key, so the next start
// finds the log short of its end, says so in its own log, and `audit verify` names a gap at
// either end for as long as the log holds it. A log left alone verifies
// after a restart; records of the first session, before any unlock, are written at once.

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct AuditAnchorTests {
  @Test func recordsCutWhileKeychaindWasStoppedAreFound() async throws {
    let setup = try await AccessControlTests.Setup(configuration: "")
    try setup.store("s3cret")
    #expect(try setup.lookup(by: "secret-tool").stdout == "s3cret")
    #expect(try setup.lookup(by: "secret-tool").stdout == "s3cret")
    _ = try await setup.decisions(["read owner": 2])
    setup.daemon.kill(with: SIGTERM)
    try await setup.daemon.start()
    let intact = try setup.keychainctl(["audit", "verify"])
    #expect(intact.status == 0, "\(intact.stderr)\n\(setup.daemon.log)")

    // Stopped again, the log loses its last two records (of three).
    setup.daemon.kill(with: SIGTERM)
    let path = setup.auditDirectory + "/audit.jsonl"
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 3, "\(lines)")
    try (lines.dropLast(2).joined(separator: "\n") + "\n")
      .write(toFile: path, atomically: false, encoding: .utf8)
    try await setup.daemon.start()
    let cut = try setup.keychainctl(["audit", "verify"])
    #expect(cut.status == 1)
    #expect(cut.stderr.contains("records were cut from the end"), "\(cut.stderr)")
    #expect(
      setup.daemon.log.contains("records were cut from its end while keychaind was not running"))

    // New records do not cover the gap.
    #expect(try setup.lookup(by: "secret-tool").stdout == "s3cret")
    let later = try setup.keychainctl(["audit", "verify"])
    #expect(later.status == 1)
    #expect(later.stderr.contains("records were removed"), "\(later.stderr)")
  }

  /// E6a and E6b: the start of the live log cut while keychaind runs (in place, as an
  /// attacker would), then one more record; and the first record rewritten.
  @Test func recordsCutFromTheStartOrARewrittenFirstRecordAreFound() async throws {
    let setup = try await AccessControlTests.Setup(configuration: "")
    try setup.store("s3cret")
    for _ in 0..<3 { #expect(try setup.lookup(by: "secret-tool").stdout == "s3cret") }
    _ = try await setup.decisions(["read owner": 3])
    let path = setup.auditDirectory + "/audit.jsonl"
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    // The first record rewritten, its MAC left as it was.
    try
      (lines.enumerated().map {
        $0.offset == 0
          ? $0.element.replacingOccurrences(of: "\"create\"", with: "\"read\"") : String($0.element)
      }.joined(separator: "\n") + "\n")
      .write(toFile: path, atomically: false, encoding: .utf8)
    let rewritten = try setup.keychainctl(["audit", "verify"])
    #expect(rewritten.status == 1)
    #expect(rewritten.stderr.contains("line 1 (record 1) was changed"), "\(rewritten.stderr)")
    // The first three records cut, then one more read.
    try (lines.dropFirst(3).joined(separator: "\n") + "\n")
      .write(toFile: path, atomically: false, encoding: .utf8)
    #expect(try setup.lookup(by: "secret-tool").stdout == "s3cret")
    _ = try await setup.decisions(["read owner": 2])
    let cut = try setup.keychainctl(["audit", "verify"])
    #expect(cut.status == 1)
    #expect(cut.stderr.contains("cut from the start"), "\(cut.stderr)")
  }

  /// ISSUE 40: the first session, where the first-use dialog makes the keyring, is in the log
  /// as it happens (no lock or unlock needed), and a kill -9 does not take it: the next start
  /// verifies.
  @Test func theFirstSessionIsLoggedAtOnceAndSurvivesAKill() async throws {
    let pinentry = try ScriptedPinentry(answers: [.pin("new password"), .pin("new password")])
    let daemon = try await DaemonProcess(password: nil, pinentry: pinentry.program)
    let stored = try daemon.run(
      "secret-tool", ["store", "--label=First", "service", "first"], stdin: Array("one".utf8))
    #expect(stored.status == 0, "\(stored.stderr)\n\(daemon.log)")
    let path = daemon.home.path + "/.local/state/keychaind/audit.jsonl"
    var records: [[String: Any]] = []
    for _ in 0..<500 {  // a bound, not a speed check
      records = (try? jsonLines(at: path)) ?? []
      if records.contains(where: { $0["op"] as? String == "create" }) { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(records.contains { $0["op"] as? String == "create" }, "\(records)\n\(daemon.log)")
    _ = daemon.kill(with: SIGKILL)
    try await daemon.start()
    let unlocked = try runCommand(
      Binaries.keychainctl, ["unlock", "--password-stdin"], environment: daemon.environment,
      stdin: Array("new password\n".utf8))
    #expect(unlocked.status == 0, "\(unlocked.stderr)")
    let verified = try runCommand(
      Binaries.keychainctl, ["audit", "verify"], environment: daemon.environment)
    #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)\n\(daemon.log)")
  }
}
