// SPDX-License-Identifier: MIT

import Foundation

/// Latencies by operation, in the order operations were first timed, with the provider's CPU
/// time per call and its memory at a few moments.
struct Report {
  private var order: [String] = []
  private var samples: [String: [Duration]] = [:]
  private var cpu: [String: Double] = [:]
  private var memory: [(moment: String, resident: Int, peak: Int)] = []
  private var notes: [String] = []

  /// A line for the end of the report (a throughput, say).
  mutating func note(_ text: String) { notes.append(text) }

  /// Times one call of `operation`.
  mutating func time<T>(_ operation: String, _ body: () async throws -> T) async throws -> T {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await body()
    record(operation, clock.now - start)
    return result
  }

  /// Adds one measured duration of `operation`.
  mutating func record(_ operation: String, _ elapsed: Duration) {
    if samples[operation] == nil { order.append(operation) }
    samples[operation, default: []].append(elapsed)
  }

  /// Charges `cpu` microseconds of the provider's time to the calls of `operation` so far.
  mutating func charge(_ operation: String, cpu total: Double) {
    let calls = samples[operation]?.count ?? 0
    if calls > 0 { cpu[operation] = total / Double(calls) }
  }

  /// Notes the provider's resident and peak memory (KiB) at `moment`.
  mutating func memory(_ moment: String, _ values: (resident: Int, peak: Int)) {
    memory.append((moment, values.resident, values.peak))
  }

  /// The `fraction` percentile of `operation`, in microseconds.
  func percentile(_ operation: String, _ fraction: Double) -> Double {
    let sorted = (samples[operation] ?? []).sorted()
    guard !sorted.isEmpty else { return 0 }
    let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))
    let (seconds, attoseconds) = sorted[index].components
    return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
  }

  private var floor: Double { percentile("Peer.Ping (floor)", 0.5) }

  func table() -> String {
    var lines = [
      "| operation | calls | p50 µs | p90 µs | p99 µs | p50 / Ping | provider CPU µs/call |",
      "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for operation in order {
      let p50 = percentile(operation, 0.5)
      lines.append(
        "| \(operation) | \(samples[operation]?.count ?? 0) | \(Int(p50)) | "
          + "\(Int(percentile(operation, 0.9))) | \(Int(percentile(operation, 0.99))) | "
          + String(format: "%.2f", floor > 0 ? p50 / floor : 0) + " | "
          + (cpu[operation].map { String(Int($0)) } ?? "") + " |")
    }
    lines += ["", "| provider memory | VmRSS KiB | VmHWM KiB |", "| --- | --- | --- |"]
    for entry in memory { lines.append("| \(entry.moment) | \(entry.resident) | \(entry.peak) |") }
    if !notes.isEmpty { lines += [""] + notes }
    return lines.joined(separator: "\n")
  }

  func json() -> String {
    var entries = order.map { operation in
      "  \"\(operation)\": {\"calls\": \(samples[operation]?.count ?? 0), "
        + "\"p50_us\": \(Int(percentile(operation, 0.5))), "
        + "\"p90_us\": \(Int(percentile(operation, 0.9))), "
        + "\"p99_us\": \(Int(percentile(operation, 0.99)))"
        + (cpu[operation].map { ", \"cpu_us\": \(Int($0))" } ?? "") + "}"
    }
    entries += memory.map { entry in
      "  \"memory \(entry.moment)\": {\"rss_kib\": \(entry.resident), \"hwm_kib\": \(entry.peak)}"
    }
    entries += notes.enumerated().map { "  \"note \($0.offset)\": \"\($0.element)\"" }
    return "{\n" + entries.joined(separator: ",\n") + "\n}"
  }
}
