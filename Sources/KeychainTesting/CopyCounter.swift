// SPDX-License-Identifier: MIT
//
// The copy counter (Sources/KeychainCopyCounter) loaded into the real keychaind with
// LD_PRELOAD: every allocation, memcpy and memmove of at least `minimum` bytes is logged, so a
// test can count how many times a big secret is made or copied while one call is answered.

import Foundation

/// Large allocations and copies in a keychaind under test.
public struct CopyCounter: Sendable {
  /// What happened, at least `minimum` bytes large.
  public struct Counts: Equatable, Sendable, CustomStringConvertible {
    public var allocations = 0
    public var copies = 0
    public var description: String { "\(allocations) allocations, \(copies) copies" }
  }

  public let minimum: Int
  public let logPath: String
  private let directory: TemporaryDirectory

  /// The shared library, built beside keychaind (`swift build` builds it with the tests).
  public static var library: String { Binaries.helper("libKeychainCopyCounter.so") }

  public init(minimum: Int) throws {
    self.minimum = minimum
    directory = try TemporaryDirectory(prefix: "copy-counter")
    logPath = directory.path + "/log"
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
  }

  /// The variables that load the counter into a daemon.
  public var environment: [String: String] {
    [
      "LD_PRELOAD": Self.library, "KEYCHAIN_COPY_LOG": logPath,
      "KEYCHAIN_COPY_MIN": String(minimum),
    ]
  }

  /// Everything logged so far.
  public var counts: Counts {
    let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    var counts = Counts()
    for line in log.split(separator: "\n") {
      if line.hasPrefix("alloc ") { counts.allocations += 1 }
      if line.hasPrefix("copy ") { counts.copies += 1 }
    }
    return counts
  }

  /// What `body` made the daemon do (nothing else may run in the daemon meanwhile).
  public func during(_ body: () async throws -> Void) async rethrows -> Counts {
    let before = counts
    try await body()
    let after = counts
    return Counts(
      allocations: after.allocations - before.allocations, copies: after.copies - before.copies)
  }
}
