// SPDX-License-Identifier: MIT
//
// keychainctl audit: keychaind's record of who read, wrote and deleted which item, read from
// its files under $XDG_STATE_HOME/keychaind. Showing needs no daemon (a running one is asked to
// write what it holds first: the batch being made, the counts of repeated reads); `verify`
// asks keychaind, which holds the chain's key.

import ArgumentParser
import Foundation
import KeychainAccess
import KeychainDBus
import SecretServiceClient
import SecretServiceProtocol

struct AuditCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "audit",
    abstract: "Show keychaind's audit log: which application accessed which item, and when.",
    discussion: """
      One record per access: time, application (and how sure its identification is), pid, \
      bus name, operation, item path and decision. Records never hold a secret, a label or an \
      attribute value. Without a subcommand, shows the records, oldest first.
      """,
    subcommands: [Show.self, Verify.self, Summary.self], defaultSubcommand: Show.self)

  /// The records of the log, oldest first, filtered.
  struct Filter: ParsableArguments {
    @Option(
      help: "Only records since then: a duration back (90s, 30m, 1h, 7d) or an ISO 8601 date.")
    var since: String?
    @Option(
      help:
        "Only records of this application: part of its key (its path: seahorse) or of its name.")
    var app: String?

    /// The records, once a running keychaind has written what it holds for the log: the batch
    /// being made, and the counts of reads repeated within the minute.
    func records() async throws -> [AuditRecord] {
      await AuditCommand.flushHeldRecords()
      let start = try since.map(Self.date)
      let directory = AuditLog.defaultDirectory(ProcessInfo.processInfo.environment)
      return AuditLog.files(in: directory).flatMap { file in
        file.text.split(separator: "\n").compactMap(AuditChain.record)
      }.filter { record in
        (start.map { record.date >= $0 } ?? true)
          && (app.map {
            record.app.key.contains($0) || record.app.display.localizedCaseInsensitiveContains($0)
          } ?? true)
      }
    }

    static func date(_ text: String) throws -> Date {
      let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
      if let unit = text.last, let seconds = units[unit], let count = Double(text.dropLast()) {
        return Date().addingTimeInterval(-count * seconds)
      }
      if let date = try? Date(text, strategy: .iso8601) { return date }
      throw ValidationError("'\(text)' is neither a duration (30m, 1h, 7d) nor an ISO 8601 date")
    }
  }

  /// Has the keychaind that owns the Secret Service's name write what it holds for the log
  /// (`FlushAudit`). None is started for it (the name must have an owner), and the files are
  /// read all the same when none answers: the log is in them whether keychaind runs or not.
  static func flushHeldRecords() async {
    guard let connection = try? await Connection.sessionBus() else { return }
    if (try? await connection.nameOwner(SecretService.busName)) != nil {
      try? await connection.callSecretService(
        SecretServiceClient.service, SecretService.AccessMethods.flushAudit)
    }
    await connection.close()
  }

  struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the records.")
    @OptionGroup var filter: Filter
    @Flag(help: "Print JSON lines, as stored (without the chain's MACs).") var json = false

    func run() async throws {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      for record in try await filter.records() {
        if json {
          print(String(decoding: try encoder.encode(record), as: UTF8.self))
        } else {
          let pid = record.app.pid.map { " pid \($0)" } ?? ""
          let who = record.app.key.isEmpty ? record.app.display : record.app.key
          // A line of repeated reads: how many, the last at its time.
          let times = record.count.map { " (\($0) times, the last then)" } ?? ""
          print(
            "\(record.date.formatted(.iso8601)) #\(record.seq) \(record.op.rawValue)\(times) \(record.decision.rawValue) \(record.item ?? "-") by \(who)\(pid) (\(record.sender), identified by \(record.app.strength))"
          )
        }
      }
    }
  }

  struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Check that no record was changed, removed or reordered; exits 1 if one was.")

    func run() async throws {
      let (intact, problem, records) = try await connectedClient().verifyAudit()
      guard intact else {
        complain("keychainctl: audit log damaged: \(problem)")
        throw Exit.failure
      }
      print("audit log intact: \(records) record(s) checked")
    }
  }

  struct Summary: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "One line per application: which items it read, most recent first.")
    @OptionGroup var filter: Filter
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Name items by object path instead of by label.") var paths = false

    /// What one application did, over the records shown.
    struct Row {
      var display: String
      var key: String
      var last: AuditRecord
      var reads = 0
      var refused = 0
      var items: [String] = []
    }

    func run() async throws {
      var rows: [String: Row] = [:]
      for record in try await filter.records() where record.op == .read {
        // Programs that could not be identified are one line: each run would be one of its own.
        let key = record.app.key.isEmpty ? "unknown" : record.app.key
        let display = record.app.key.isEmpty ? "unidentified programs" : record.app.display
        var row = rows[key] ?? Row(display: display, key: record.app.key, last: record)
        // A line of repeated reads is written when their minute is over: not in time order.
        if record.time >= row.last.time { row.last = record }
        if record.isRefusal {
          row.refused += record.count ?? 1
        } else {
          row.reads += record.count ?? 1
        }
        if let item = record.item, !row.items.contains(item) { row.items.append(item) }
        rows[key] = row
      }
      let sorted = rows.values.sorted { $0.last.time > $1.last.time }
      let names = await ObjectNames(asPaths: paths || json)
      if json {
        try printJSON(
          sorted.map {
            [
              "app": $0.key, "display": $0.display, "items": $0.items, "reads": $0.reads,
              "refused": $0.refused, "last": $0.last.date.formatted(.iso8601),
            ] as [String: Any]
          })
        return
      }
      for row in sorted {
        var named: [String] = []
        for item in row.items { named.append(await names.name(of: item)) }
        let refused = row.refused > 0 ? ", \(row.refused) refused" : ""
        print(
          "\(row.display): \(row.reads) read(s) of \(row.items.count) item(s)\(refused), last \(row.last.date.formatted(.iso8601)): \(named.joined(separator: ", "))"
        )
      }
    }
  }
}
