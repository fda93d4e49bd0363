// SPDX-License-Identifier: MIT
//
// Records cut from the end of the audit log while keychaind was not running: the store keeps
// where the chain ended when keychaind stopped, sealed beside the chain's key, so the next
// start finds the log short of it, says so in its own log, and `audit verify` names the gap
// for as long as the log holds it. A log left alone verifies after a restart.

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
}
