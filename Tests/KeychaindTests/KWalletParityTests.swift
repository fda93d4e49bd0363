// SPDX-License-Identifier: MIT
//
// The peer is the oracle: Tests/clients/kwallet-conformance.py drives every method of
// org.kde.KWallet, with valid, stale and foreign handles, missing folders and keys, both
// overloads, the wildcard list methods and the signals each step causes, against Debian's
// kwalletd5 and against keychaind; the two outputs must be equal except for the deliberate
// differences below, which README's KDE section lists with their reasons.

import Foundation
import KeychainTesting
import Testing

@Suite struct KWalletParityTests {
  /// The steps whose outputs differ on purpose, and why.
  static let deliberate: [String: String] = [
    "removeFolder": "removing a folder deletes its entries, which also sends folderUpdated",
    "openPath": "keychaind opens no .kwl file at a path (it imports them): -1 at once",
  ]

  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("clients/kwallet-conformance.py").path

  @Test(.enabled(if: KWalletd.executable != nil, "needs libkf5wallet-bin"))
  func everyMethodAnswersAsKwalletd5Does() async throws {
    // kwalletd5's wallet is made as kwallet-pam makes it, so that it opens with no dialog.
    let kwalletd = try await KWalletd()
    let reference = try runCommand(
      "/usr/bin/python3", [Self.script, "--pam-open", "test-pw"], environment: kwalletd.environment)
    #expect(reference.status == 0, "\(reference.stderr)")

    let daemon = try await DaemonProcess()
    let ours = try runCommand(
      "/usr/bin/python3", [Self.script], environment: daemon.bus.environment(home: daemon.home.path)
    )
    #expect(ours.status == 0, "\(ours.stderr)")

    let expected = try Self.steps(reference.stdout)
    let got = try Self.steps(ours.stdout)
    #expect(expected.map(\.step) == got.map(\.step))
    #expect(expected.count > 90)
    for (theirs, mine) in zip(expected, got) where theirs.line != mine.line {
      if Self.deliberate[theirs.step] == nil {
        Issue.record("kwalletd5: \(theirs.line)\nkeychaind: \(mine.line)")
      }
    }
    // Each deliberate difference is still one (or it would be taken off the list).
    for step in Self.deliberate.keys {
      let pair = (expected.first { $0.step == step }, got.first { $0.step == step })
      #expect(pair.0 != nil && pair.0?.line != pair.1?.line, "\(step) no longer differs")
    }
  }

  /// Each JSON line with its step name.
  static func steps(_ output: String) throws -> [(step: String, line: String)] {
    try output.split(separator: "\n").map { line in
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      guard let step = object?["step"] as? String else {
        throw TestingError("not a step: \(line)")
      }
      return (step, String(line))
    }
  }
}
