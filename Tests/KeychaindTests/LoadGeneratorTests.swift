// SPDX-License-Identifier: MIT
//
// keychain-load against the real keychaind: a short run passes its own checks, and a provider
// that cannot answer (a locked collection) makes it fail loudly.

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct LoadGeneratorTests {
  private var executable: String { Binaries.helper("keychain-load") }

  @Test func aShortRunChecksEveryAnswerAndCleansUp() async throws {
    let daemon = try await DaemonProcess()
    let result = try daemon.run(executable, ["--items", "20", "--samples", "10"])
    #expect(result.status == 0, "\(result.stderr)\n\(daemon.log)")
    for row in [
      "CreateItem (plain) | 20 |", "Peer.Ping (floor) | 10 |", "SearchItems, 1 hit | 10 |",
      "SearchItems, miss | 10 |", "GetSecret (plain) | 10 |", "GetSecret (DH) | 10 |",
      "GetSecrets, 10 items (plain) | 10 |", "OpenSession (DH) | 10 |",
    ] {
      #expect(result.stdout.contains("| \(row)"), "\(row)\n\(result.stdout)")
    }
    // Its items are gone afterwards.
    let left = try daemon.run("secret-tool", ["search", "--all", "kind", "load"])
    #expect(!left.stdout.contains("secret ="), "\(left.stdout)")
  }

  @Test func aLockedCollectionFailsTheRun() async throws {
    let daemon = try await DaemonProcess()
    _ = try daemon.run(
      "gdbus",
      [
        "call", "--session", "-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets",
        "-m", "org.freedesktop.Secret.Service.Lock", "['/org/freedesktop/secrets/aliases/default']",
      ])
    let result = try daemon.run(executable, ["--items", "5", "--samples", "5"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("IsLocked"), "\(result.stderr)")
  }
}
