// SPDX-License-Identifier: MIT
//
// Many clients at once, each on its own connection, storing, changing, deleting and reading
// back items of its own (the crash harness's writers, without the kill): every call must
// succeed, every read must find what that client wrote, and afterwards everything is read back
// once more through a fresh connection.

import KeychainDBus

public struct MixedLoad: Sendable {
  public let clients: Int
  public let callsPerClient: Int

  public init(clients: Int, callsPerClient: Int) {
    self.clients = clients
    self.callsPerClient = callsPerClient
  }

  /// Runs the load against `daemon`; returns how many calls were made and checked.
  public func run(against daemon: DaemonProcess) async throws -> Int {
    let run = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    let bus = daemon.bus
    let limit = callsPerClient
    let writers = try await withThrowingTaskGroup(of: CrashWriter.self) { group in
      for client in 0..<clients {
        group.addTask {
          var writer = CrashWriter(writer: client, run: run)
          try await writer.write(through: try await bus.connect(), limit: limit)
          guard writer.pending == nil, writer.acknowledged == limit else {
            throw TestingError(
              "client \(client): a call failed after \(writer.acknowledged) of \(limit)")
          }
          return writer
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    let checker = try await bus.connect()
    let session = try await CrashWriter.openSession(checker)
    for var writer in writers {
      try await writer.verify(through: checker, session: session, cycle: 0)
    }
    await checker.close()
    return writers.map(\.acknowledged).reduce(0, +)
  }
}
