// SPDX-License-Identifier: MIT

import Foundation

/// Latencies by operation, in the order operations were first timed.
struct Report {
  private var order: [String] = []
  private var samples: [String: [Duration]] = [:]

  /// Times one call of `operation`.
  mutating func time<T>(_ operation: String, _ body: () async throws -> T) async throws -> T {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await body()
    let elapsed = clock.now - start
    if samples[operation] == nil { order.append(operation) }
    samples[operation, default: []].append(elapsed)
    return result
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
      "| operation | calls | p50 µs | p90 µs | p99 µs | p50 / Ping |",
      "| --- | --- | --- | --- | --- | --- |",
    ]
    for operation in order {
      let p50 = percentile(operation, 0.5)
      lines.append(
        "| \(operation) | \(samples[operation]?.count ?? 0) | \(Int(p50)) | "
          + "\(Int(percentile(operation, 0.9))) | \(Int(percentile(operation, 0.99))) | "
          + String(format: "%.2f", floor > 0 ? p50 / floor : 0) + " |")
    }
    return lines.joined(separator: "\n")
  }

  func json() -> String {
    let entries = order.map { operation in
      "  \"\(operation)\": {\"calls\": \(samples[operation]?.count ?? 0), "
        + "\"p50_us\": \(Int(percentile(operation, 0.5))), "
        + "\"p90_us\": \(Int(percentile(operation, 0.9))), "
        + "\"p99_us\": \(Int(percentile(operation, 0.99)))}"
    }
    return "{\n" + entries.joined(separator: ",\n") + "\n}"
  }
}
