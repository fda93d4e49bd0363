// SPDX-License-Identifier: MIT
//
// keychain-load: drives any Secret Service provider on the session bus (keychaind,
// gnome-keyring, KWallet, …) and times each kind of call, checking every answer.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainDBus
import SecretServiceProtocol

@main
struct KeychainLoad: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keychain-load",
    abstract: "Time Secret Service calls against the provider on the session bus, verifying each.",
    discussion: """
      Stores ITEMS items in the collection (through CreateItem, each timed), then times
      Peer.Ping (the floor), SearchItems (one hit, a miss), GetSecret and GetSecrets through
      plain and DH sessions, and OpenSession, SAMPLES calls each. Every secret read back and
      every search result is checked; a wrong answer ends the run with status 1. The items are
      deleted at the end unless --keep is given. Run it against a private bus, never against
      the keyring you use (it needs the collection unlocked).
      """)

  @Option(help: "How many items to store first.")
  var items = 1000

  @Option(help: "How many timed calls of each kind.")
  var samples = 500

  @Option(help: "The collection to fill.")
  var collection = "/org/freedesktop/secrets/aliases/default"

  @Flag(help: "Leave the stored items in place.")
  var keep = false

  @Flag(help: "Print the results as JSON instead of a table.")
  var json = false

  func run() async throws {
    guard items > 0, samples > 0 else { throw ValidationError("items and samples must be > 0") }
    let connection = try await Connection.sessionBus()
    let client = ServiceClient(connection: connection, collection: try ObjectPath(collection))
    let run = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    var report = Report()

    let plain = try await client.openSession(.plain)
    let dh = try await client.openSession(.dhIETF1024)
    var stored: [ObjectPath] = []
    for index in 0..<items {
      let path = try await report.time("CreateItem (plain)") {
        try await client.createItem(index: index, run: run, session: plain)
      }
      stored.append(path)
    }
    let picks = (0..<samples).map { _ in Int.random(in: 0..<items) }
    for _ in picks { try await report.time("Peer.Ping (floor)") { try await client.ping() } }
    for index in picks {
      try await report.time("SearchItems, 1 hit") {
        try await client.expectSearch(run: run, index: index, found: [stored[index]])
      }
    }
    for _ in picks {
      try await report.time("SearchItems, miss") {
        try await client.expectSearch(run: run, index: -1, found: [])
      }
    }
    for (name, session) in [("plain", plain), ("DH", dh)] {
      for index in picks {
        try await report.time("GetSecret (\(name))") {
          try await client.expectSecret(stored[index], index: index, run: run, session: session)
        }
      }
    }
    for index in picks {
      let batch = (0..<10).map { (index + $0) % items }
      try await report.time("GetSecrets, 10 items (plain)") {
        try await client.expectSecrets(batch.map { stored[$0] }, batch, run: run, session: plain)
      }
    }
    for algorithm in [SessionAlgorithm.plain, .dhIETF1024] {
      for _ in 0..<min(samples, 200) {
        let session = try await report.time("OpenSession (\(algorithm == .plain ? "plain" : "DH"))")
        {
          try await client.openSession(algorithm)
        }
        try await client.close(session.path)
      }
    }
    if !keep {
      for path in stored { try await client.delete(path) }
    }
    print(json ? report.json() : report.table())
  }
}
