// SPDX-License-Identifier: MIT

import ArgumentParser
import Foundation
import KeychainDBus
import SecretServiceProtocol

/// The measurement run: fill (or find seeded items), then each kind of call, SAMPLES times.
struct Measure: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Fill the collection and time each kind of call (the default command).",
    discussion: """
      Stores ITEMS items in the collection (through CreateItem, each timed), or with --seeded
      uses the ITEMS items `keychain-load seed` stored and times --creates new ones. Then times
      Peer.Ping (the floor), SearchItems (one hit, a miss), GetSecret and GetSecrets through
      plain and DH sessions, and OpenSession, SAMPLES calls each; with --restart, also the
      cold start to the first secret. Every secret read back and every search result is
      checked; a wrong answer ends the run with status 1. Beside each latency it shows the
      provider's CPU time per call and, at the end, its resident memory, both from /proc (so
      the provider must run on this machine). Items it created are deleted at the end unless
      --keep is given. Run it against a private bus, never against the keyring you use.
      """)

  @Option(help: "How many items to store first (or, with --seeded, are stored).")
  var items = 1000

  @Option(help: "How many timed calls of each kind.")
  var samples = 500

  @Option(help: "The collection to fill.")
  var collection = "/org/freedesktop/secrets/aliases/default"

  @Flag(help: "The items were stored by `keychain-load seed`: do not fill.")
  var seeded = false

  @Option(help: "With --seeded, how many CreateItem calls to time.")
  var creates = 100

  @Option(
    help: ArgumentHelp(
      "Also time cold starts: stop the provider (SIGTERM) and run this shell command to start it again.",
      valueName: "command"))
  var restart: String?

  @Option(help: "How many cold starts to time with --restart.")
  var coldRuns = 5

  @Flag(help: "Leave the created items in place.")
  var keep = false

  @Flag(help: "Print the results as JSON instead of a table.")
  var json = false

  @Option(
    help: ArgumentHelp(
      "Time only these kinds of call (comma-separated), e.g. to profile one.",
      valueName: "ping,search,scoped,replace,secret,secret-plain,secret-dh,secrets,session,big"))
  var only: String?

  @Option(help: "Also time CreateItem throughput with this many concurrent writers (e.g. 1,4,16).")
  var writers: String?

  private func wanted(_ kind: String) -> Bool {
    only.map { $0.split(separator: ",").contains(Substring(kind)) } ?? true
  }

  func run() async throws {
    guard items > 0, samples > 0, creates >= 0, coldRuns > 0 else {
      throw ValidationError("items, samples and cold runs must be > 0")
    }
    let connection = try await Connection.sessionBus()
    let client = ServiceClient(connection: connection, collection: try ObjectPath(collection))
    var provider = try await Provider.current(connection)
    var report = Report()
    let plain = try await client.openSession(.plain)
    let dh = try await client.openSession(.dhIETF1024)

    // Fill, or time a few creations beside the seeded items.
    let fresh = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    let run = seeded ? ServiceClient.seedRun : fresh
    var created: [ObjectPath] = []
    var paths: [Int: ObjectPath] = [:]
    do {
      let mark = provider.cpuMicroseconds()
      for index in 0..<(seeded ? creates : items) {
        let path = try await report.time("CreateItem (plain)") {
          try await client.createItem(index: index, run: fresh, session: plain)
        }
        created.append(path)
        if !seeded { paths[index] = path }
      }
      report.charge("CreateItem (plain)", cpu: provider.cpuMicroseconds() - mark)
    }
    report.memory("after the fill", provider.memory())

    let picks = (0..<samples).map { _ in Int.random(in: 0..<items) }
    if seeded || !wanted("search") {
      for index in picks where paths[index] == nil {
        paths[index] = try await client.find(run: run, index: index)
      }
    }
    if wanted("ping") {
      let mark = provider.cpuMicroseconds()
      for _ in picks { try await report.time("Peer.Ping (floor)") { try await client.ping() } }
      report.charge("Peer.Ping (floor)", cpu: provider.cpuMicroseconds() - mark)
    }
    if wanted("search") {
      let mark = provider.cpuMicroseconds()
      for index in picks {
        let found = try await report.time("SearchItems, 1 hit") {
          try await client.find(run: run, index: index)
        }
        guard paths[index, default: found] == found else {
          throw WrongAnswer(description: "SearchItems for \(index) found \(found)")
        }
        paths[index] = found
      }
      report.charge("SearchItems, 1 hit", cpu: provider.cpuMicroseconds() - mark)
    }
    if wanted("scoped") {
      let mark = provider.cpuMicroseconds()
      for index in picks {
        try await report.time("Collection.SearchItems, 1 hit") {
          try await client.expectScopedSearch(run: run, index: index, found: paths[index]!)
        }
      }
      report.charge("Collection.SearchItems, 1 hit", cpu: provider.cpuMicroseconds() - mark)
    }
    if wanted("replace") {
      // What `secret-tool store` does for an item that exists: the item keeps its path.
      let mark = provider.cpuMicroseconds()
      for index in picks.prefix(200) {
        let replaced = try await report.time("CreateItem, replace (plain)") {
          try await client.createItem(index: index, run: run, session: plain, replace: true)
        }
        guard replaced == paths[index] else {
          throw WrongAnswer(description: "replacing item \(index) made \(replaced)")
        }
      }
      report.charge("CreateItem, replace (plain)", cpu: provider.cpuMicroseconds() - mark)
    }
    if wanted("search") {
      let mark = provider.cpuMicroseconds()
      for _ in picks {
        try await report.time("SearchItems, miss") {
          try await client.expectSearch(run: run, index: -1, found: [])
        }
      }
      report.charge("SearchItems, miss", cpu: provider.cpuMicroseconds() - mark)
    }
    for (name, session) in [("plain", plain), ("DH", dh)] {
      // `secret` is both; `secret-plain` or `secret-dh` one session's, to profile it alone.
      if wanted("secret") || wanted("secret-\(name.lowercased())") {
        let mark = provider.cpuMicroseconds()
        for index in picks {
          try await report.time("GetSecret (\(name))") {
            try await client.expectSecret(paths[index]!, index: index, run: run, session: session)
          }
        }
        report.charge("GetSecret (\(name))", cpu: provider.cpuMicroseconds() - mark)
      }
    }
    if wanted("secrets") {
      let mark = provider.cpuMicroseconds()
      for start in picks.indices {
        let batch = (0..<10).map { picks[(start + $0) % picks.count] }
        try await report.time("GetSecrets, 10 items (plain)") {
          try await client.expectSecrets(batch.map { paths[$0]! }, batch, run: run, session: plain)
        }
      }
      report.charge("GetSecrets, 10 items (plain)", cpu: provider.cpuMicroseconds() - mark)
    }
    for algorithm in [SessionAlgorithm.plain, .dhIETF1024] {
      let name = "OpenSession (\(algorithm == .plain ? "plain" : "DH"))"
      if wanted("session") {
        let mark = provider.cpuMicroseconds()
        for _ in 0..<min(samples, 200) {
          let session = try await report.time(name) { try await client.openSession(algorithm) }
          try await client.close(session.path)
        }
        report.charge(name, cpu: provider.cpuMicroseconds() - mark)
      }
    }
    if wanted("big") {
      let big = try await BigSecret.measure(client, plain: plain, dh: dh, provider, &report)
      created.append(big)
    }
    report.memory("after the calls", provider.memory())
    // What a provider keeps once it is quiet: keychaind hands freed memory back half a second
    // after large work, not at each free.
    try await Task.sleep(for: .seconds(1.5))
    report.memory("1.5 s later", provider.memory())
    if let writers {
      for count in writers.split(separator: ",").compactMap({ Int($0) }) {
        created += try await Throughput.measure(
          writers: count, collection: collection, connection: connection, provider, &report)
      }
    }

    if let restart {
      for _ in 0..<coldRuns {
        try await provider.stop()
        try await coldStart(restart, connection, item: picks[0], run: run, &report)
        provider = try await Provider.current(connection)
      }
      report.memory("after a cold start", provider.memory())
    }
    if !keep {
      for path in created { try await client.delete(path) }
    }
    print(json ? report.json() : report.table())
  }

  /// Starts the provider with `command` and times it: until it owns the name, until SearchItems
  /// finds `item` unlocked, until its secret is read back right.
  private func coldStart(
    _ command: String, _ connection: Connection, item: Int, run: String, _ report: inout Report
  ) async throws {
    let client = ServiceClient(connection: connection, collection: try ObjectPath(collection))
    let clock = ContinuousClock()
    let start = clock.now
    try Provider.spawn(command)
    while try await !Provider.isRunning(connection) {
      guard clock.now - start < .seconds(60) else {
        throw WrongAnswer(description: "the provider did not take the name within 60 s")
      }
      try await Task.sleep(for: .microseconds(200))
    }
    report.record("Cold start: name owned", clock.now - start)
    var found: ObjectPath?
    while found == nil {
      // Until it has unlocked, the item is found locked, or not at all.
      if let hits = try? await client.search(run: run, index: item), hits.unlocked.count == 1 {
        found = hits.unlocked[0]
      } else if clock.now - start > .seconds(60) {
        throw WrongAnswer(description: "item \(item) not found unlocked within 60 s of start")
      }
    }
    report.record("Cold start: first SearchItems hit", clock.now - start)
    let session = try await client.openSession(.plain)
    try await client.expectSecret(found!, index: item, run: run, session: session)
    report.record("Cold start: first secret", clock.now - start)
  }
}
