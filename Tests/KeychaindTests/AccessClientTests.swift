// SPDX-License-Identifier: MIT
//
// Real clients in `access-control = protect`, each reading what it stored itself: no dialog
// (the daemon has no pinentry, so one would fail the client), and the audit log shows each
// read decided by ownership. python-keyring through its own command, git's libsecret
// credential helper run by git, and Chromium's "Chromium Safe Storage" key across two runs. A
// client polling its password is one line for its first read and one for the repeats.

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct AccessClientTests {
  /// The daemon in protect with no pinentry: a dialog would dismiss its prompt.
  func daemon() async throws -> DaemonProcess {
    try await DaemonProcess(configuration: AccessControlTests.protect)
  }

  /// Every read in the audit log, as "DECISION APP"; waits until `count` are there.
  func reads(_ daemon: DaemonProcess, atLeast count: Int) async throws -> [String] {
    let path = daemon.home.path + "/.local/state/keychaind/audit.jsonl"
    var reads: [String] = []
    for _ in 0..<500 {
      reads = try jsonLines(at: path).compactMap { record in
        guard record["op"] as? String == "read" else { return nil }
        let app = (record["app"] as? [String: Any])?["key"] as? String ?? ""
        return "\(record["decision"]!) \(app)"
      }
      if reads.count >= count { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    return reads
  }

  @Test func pythonKeyringReadsItsOwnPassword() async throws {
    let daemon = try await daemon()
    let set = try daemon.run("/usr/bin/keyring", ["set", "svc", "bob"], stdin: Array("pw1\n".utf8))
    #expect(set.status == 0, "\(set.stderr)\n\(daemon.log)")
    let got = try daemon.run("/usr/bin/keyring", ["get", "svc", "bob"])
    #expect(got.stdout == "pw1\n", "\(got.stderr)\n\(daemon.log)")
    let reads = try await self.reads(daemon, atLeast: 1)
    #expect(!reads.isEmpty && reads.allSatisfy { $0.hasPrefix("owner via:script:") }, "\(reads)")
    #expect(reads.allSatisfy { $0.contains(":/usr/bin/keyring@") }, "\(reads)")
  }

  @Test func gitsCredentialHelperReadsWhatGitStored() async throws {
    let daemon = try await daemon()
    let helper = try GitCredentialTests.buildHelper(in: daemon.home)
    try GitCredentialTests.lifecycle(helper: helper, daemon.environment)
    let reads = try await self.reads(daemon, atLeast: 1)
    #expect(!reads.isEmpty && reads.allSatisfy { $0.hasPrefix("owner via:exe:") }, "\(reads)")
    #expect(reads.allSatisfy { $0.hasSuffix("@exe:/usr/bin/git") }, "\(reads)")
  }

  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
      "Chromium is not installed"))
  func chromiumReadsItsSafeStorageKeyInItsNextRun() async throws {
    let daemon = try await daemon()
    let profile = daemon.home.path + "/chromium"
    let set = try ChromiumTests.chromium("set", profile: profile, daemon.environment)
    #expect(set == "session=abc\nsession v11\n", "\(set)\n\(daemon.log)")
    let shown = try ChromiumTests.chromium("show", profile: profile, daemon.environment)
    #expect(shown.hasPrefix("session=abc\n"), "\(shown)\n\(daemon.log)")
    let reads = try await self.reads(daemon, atLeast: 1)
    #expect(!reads.isEmpty && reads.allSatisfy { $0.hasPrefix("owner exe:") }, "\(reads)")
  }

  @Test func aClientPollingItsPasswordIsALineAndACount() async throws {
    let daemon = try await daemon()
    // One connection, one process: stores its password, then reads it five times.
    let script = """
      import secretstorage
      coll = secretstorage.get_default_collection(secretstorage.dbus_init())
      item = coll.create_item('Poll', {'service': 'poll'}, b'pw', replace=True)
      print(''.join(item.get_secret().decode() for _ in range(5)))
      """
    // A script file, as a real client is: identified, it owns what it stores.
    let path = daemon.home.path + "/poll.py"
    try script.write(toFile: path, atomically: true, encoding: .utf8)
    let polled = try daemon.run("/usr/bin/python3", [path])
    #expect(polled.stdout == "pwpwpwpwpw\n", "\(polled.stderr)\n\(daemon.log)")
    // The first read is on disk without anyone asking; the repeats are held for their minute.
    #expect(try await reads(daemon, atLeast: 1).count == 1)
    // `audit show` has keychaind write them first (FlushAudit).
    let show = try daemon.run(Binaries.keychainctl, ["audit", "show"])
    let shown = show.stdout
    #expect(shown.contains(" read (4 times, the last then) owner "), "\(shown)")
    // Closing its own connection is not news (it printed "closed by the bus").
    #expect(show.stderr.isEmpty, "\(show.stderr)")
    let lines = try jsonLines(at: daemon.home.path + "/.local/state/keychaind/audit.jsonl")
      .filter { $0["op"] as? String == "read" }
    #expect(lines.map { $0["count"] as? Int } == [nil, 4], "\(lines)")
    let verified = try daemon.run(Binaries.keychainctl, ["audit", "verify"])
    #expect(verified.status == 0, "\(verified.stderr)")
    let summary = try daemon.run(Binaries.keychainctl, ["audit", "summary", "--paths"]).stdout
    #expect(summary.contains(": 5 read(s) of 1 item(s)"), "\(summary)")
  }
}
