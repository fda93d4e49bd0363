// SPDX-License-Identifier: MIT
//
// Two measurements beside the per-call latencies: CreateItem throughput with concurrent writers
// (each acknowledged write is synced; the provider may share syncs between writers), and a
// 10 MiB secret written once and read back through plain and DH sessions.

import Foundation
import KeychainDBus
import SecretServiceProtocol

enum Throughput {
  /// `writers` clients, each on its own connection, create items for a fixed time; the report
  /// gets items/s as "CreateItem, N writers" (one sample per item, so p50 is the latency too).
  static func measure(
    writers: Int, collection: String, connection: Connection, _ provider: Provider,
    _ report: inout Report, seconds: Double = 3
  ) async throws -> [ObjectPath] {
    let run = "writers-\(writers)-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int(seconds * 1000))
    let mark = provider.cpuMicroseconds()
    let start = clock.now
    let results = try await withThrowingTaskGroup(of: [(ObjectPath, Duration)].self) { group in
      for writer in 0..<writers {
        group.addTask {
          let own = try await Connection.sessionBus()
          defer { Task { await own.close() } }
          let client = ServiceClient(connection: own, collection: try ObjectPath(collection))
          let session = try await client.openSession(.plain)
          var made: [(ObjectPath, Duration)] = []
          var index = writer * 1_000_000
          while clock.now < deadline {
            let begun = clock.now
            made.append(
              (
                try await client.createItem(index: index, run: run, session: session),
                clock.now - begun
              ))
            index += 1
          }
          return made
        }
      }
      var all: [(ObjectPath, Duration)] = []
      for try await made in group { all += made }
      return all
    }
    let elapsed = clock.now - start
    let name = "CreateItem, \(writers) writers"
    for (_, latency) in results { report.record(name, latency) }
    report.charge(name, cpu: provider.cpuMicroseconds() - mark)
    let perSecond =
      Double(results.count)
      / (Double(elapsed.components.seconds)
        + Double(elapsed.components.attoseconds) / 1e18)
    report.note("\(name): \(Int(perSecond)) items/s")
    return results.map(\.0)
  }
}

enum BigSecret {
  static let size = 10 << 20

  /// Stores one 10 MiB secret, then reads it back 10 times through each session.
  static func measure(
    _ client: ServiceClient, plain: ServiceClient.Session, dh: ServiceClient.Session,
    _ provider: Provider, _ report: inout Report
  ) async throws -> ObjectPath {
    let secret = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
    let item = try await report.time("CreateItem, 10 MiB (plain)") {
      try await client.createItem(index: -2, run: "big", session: plain, secret: secret)
    }
    for (name, session) in [("plain", plain), ("DH", dh)] {
      let operation = "GetSecret, 10 MiB (\(name))"
      let mark = provider.cpuMicroseconds()
      for _ in 0..<10 {
        try await report.time(operation) {
          try await client.expectSecret(item, secret, session: session)
        }
      }
      report.charge(operation, cpu: provider.cpuMicroseconds() - mark)
    }
    report.memory("after the 10 MiB secret", provider.memory())
    return item
  }
}
