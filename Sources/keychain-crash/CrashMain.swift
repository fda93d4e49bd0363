// SPDX-License-Identifier: MIT
//
// keychain-crash: the full form of the crash-safety check (the test suite runs a short one).
// Builds on KeychainTesting's harness; needs keychaind built beside it.

import ArgumentParser
import KeychainTesting

@main
struct KeychainCrash: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keychain-crash",
    abstract: "Kill keychaind under concurrent writers again and again; check it lost nothing.",
    discussion: """
      Starts keychaind (the one built beside this program) on a private bus with a throwaway
      home. Each cycle, the writers store, change and delete items concurrently until keychaind
      is killed with SIGKILL at a random moment; it is restarted on the same store, which must
      pass PRAGMA integrity_check and hold exactly what was acknowledged. Exits 1 at the first
      difference. Full form: swift run -c release keychain-crash --cycles 200 --writers 16
      """)

  @Option(help: "Kill/restart cycles.")
  var cycles = 200

  @Option(help: "Concurrent writers, each on its own connection.")
  var writers = 16

  @Option(help: "Longest run before a kill, in milliseconds (the moment is random).")
  var maxRun = 300

  func run() async throws {
    let harness = CrashHarness(cycles: cycles, writers: writers, maxRun: .milliseconds(maxRun))
    let report = try await harness.run { line in print(line) }
    print("PASS: \(report)")
  }
}
