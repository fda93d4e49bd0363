// SPDX-License-Identifier: MIT
//
// Crash safety, checked from outside: keychaind runs under concurrent writers (CreateItem,
// SetSecret, Delete), is killed with SIGKILL at a random moment, restarted on the same store,
// and must then hold exactly what it acknowledged. A call whose reply never came may or may not
// have happened, so for the one call each writer had in flight both outcomes are accepted;
// anything else (a lost or resurrected item, a wrong or torn secret, a duplicate) fails the
// run, as does a database failing `PRAGMA integrity_check`.

import Foundation
import GRDB
import KeychainDBus
import SecretServiceProtocol
import Synchronization

/// What a crash run did.
public struct CrashReport: Sendable, CustomStringConvertible {
  public var cycles = 0
  /// Calls whose reply arrived, each checked after the next restart.
  public var acknowledged = 0
  /// Calls cut off by a kill: either outcome was accepted.
  public var cutOff = 0
  /// Items in the store after the last restart.
  public var items = 0

  public var description: String {
    "\(cycles) kill/restart cycles: \(acknowledged) acknowledged writes all found exactly, "
      + "\(cutOff) cut-off calls resolved one way or the other, \(items) items at the end, "
      + "integrity_check ok after every restart"
  }
}

/// Runs `cycles` kill/restart cycles with `writers` concurrent writers.
public struct CrashHarness: Sendable {
  public let cycles: Int
  public let writers: Int
  /// The longest a cycle runs before the kill (the moment is random up to this).
  public let maxRun: Duration
  /// Each kill is a power cut: whatever the store wrote but had not synced is lost with it
  /// (through the fault VFS), not only what was still in the process.
  public let powerCut: Bool

  public init(
    cycles: Int, writers: Int, maxRun: Duration = .milliseconds(300), powerCut: Bool = false
  ) {
    self.cycles = cycles
    self.writers = writers
    self.maxRun = maxRun
    self.powerCut = powerCut
  }

  /// Runs the cycles against a fresh daemon; throws at the first difference.
  /// - Parameter tamper: called after each restart, before the check, with a connection and
  ///   the paths of items the writers' acknowledged calls left: a test of the harness itself
  ///   changes the store there and expects the run to fail.
  public func run(
    progress: @Sendable (String) -> Void = { _ in },
    tamper: @Sendable (Connection, [ObjectPath]) async throws -> Void = { _, _ in }
  ) async throws -> CrashReport {
    let vfs = try FaultVFS()
    let daemon = try await DaemonProcess(environment: powerCut ? vfs.environment : [:])
    let store = daemon.home.path + "/.local/share/keychaind"
    let run = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    var models = (0..<writers).map { CrashWriter(writer: $0, run: run) }
    var report = CrashReport()
    for cycle in 1...cycles {
      let started = models
      let bus = daemon.bus
      let replied = Replied()
      let finished = try await withThrowingTaskGroup(of: CrashWriter.self) { group in
        for model in started {
          group.addTask {
            var model = model
            let writer = model.writer
            try await model.write(
              through: try await bus.connect(),
              replied: { replied.writers.withLock { _ = $0.insert(writer) } })
            return model
          }
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: 5...maxRun.milliseconds)))
        // Never before every writer had a reply: on a loaded machine the kill could otherwise
        // come before anything was written, and the cycle would check nothing.
        for _ in 0..<1500 where replied.writers.withLock({ $0.count }) < started.count {
          try await Task.sleep(for: .milliseconds(20))
        }
        daemon.kill(with: SIGKILL)
        if powerCut { try vfs.cutPower(store: store) }
        var finished: [CrashWriter] = []
        for try await model in group { finished.append(model) }
        return finished.sorted { $0.writer < $1.writer }
      }
      for (before, after) in zip(started, finished) {
        report.acknowledged += after.acknowledged - before.acknowledged
        if after.pending != nil { report.cutOff += 1 }
      }
      try await daemon.start()
      try Self.checkIntegrity(home: daemon.home.path)
      let client = try await daemon.bus.connect()
      try await tamper(client, finished.flatMap(\.settledPaths))
      let session = try await CrashWriter.openSession(client)
      models = []
      for var model in finished {
        try await model.verify(through: client, session: session, cycle: cycle)
        models.append(model)
      }
      await client.close()
      report.cycles = cycle
      report.items = models.map(\.items.count).reduce(0, +)
      progress("cycle \(cycle): \(report)")
    }
    _ = daemon.terminate()
    return report
  }

  /// `PRAGMA integrity_check` on the daemon's database, through a read-only connection.
  static func checkIntegrity(home: String) throws {
    let path = home + "/.local/share/keychaind/keychain.db"
    var configuration = Configuration()
    configuration.readonly = true
    let result = try DatabaseQueue(path: path, configuration: configuration).read { db in
      try String.fetchAll(db, sql: "PRAGMA integrity_check")
    }
    guard result == ["ok"] else {
      throw TestingError("integrity_check after a crash: \(result.joined(separator: "; "))")
    }
  }
}

/// The writers that got a reply in the current cycle.
private final class Replied: Sendable {
  let writers = Mutex(Set<Int>())
}

extension Duration {
  fileprivate var milliseconds: Int {
    Int(components.seconds * 1000) + Int(components.attoseconds / 1_000_000_000_000_000)
  }
}
