// SPDX-License-Identifier: MIT
//
// Logs on stderr, readable in a terminal and in the journal. Under systemd (JOURNAL_STREAM set,
// naming the stderr we have) each line starts with its syslog priority, `<6>`, which journald
// turns into the entry's priority, and carries no timestamp of its own: journald adds one.

import Foundation
import Logging

/// swift-log's handler for keychaind.
struct JournalLogHandler: LogHandler {
  var logLevel: Logger.Level
  var metadata: Logger.Metadata = [:]
  var metadataProvider: Logger.MetadataProvider?
  /// Whether stderr is a journal stream.
  let journal: Bool

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  init(level: Logger.Level, environment: [String: String]) {
    logLevel = level
    journal = Self.stderrIsJournal(environment["JOURNAL_STREAM"])
  }

  /// JOURNAL_STREAM is `device:inode` of the journal's stream; it counts only when stderr is
  /// that very file (not a pipe a child inherited the variable through).
  static func stderrIsJournal(_ value: String?) -> Bool {
    guard let parts = value?.split(separator: ":"), parts.count == 2,
      let device = UInt64(parts[0]), let inode = UInt64(parts[1])
    else { return false }
    var info = stat()
    guard fstat(2, &info) == 0 else { return false }
    return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
  }

  /// syslog priorities, as sd-daemon(3) prefixes use them.
  static func priority(_ level: Logger.Level) -> Int {
    switch level {
    case .trace, .debug: 7
    case .info: 6
    case .notice: 5
    case .warning: 4
    case .error: 3
    case .critical: 2
    }
  }

  func log(event: LogEvent) {
    var details = metadata
    if let extra = event.metadata { details.merge(extra) { $1 } }
    let pairs = details.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }
    let suffix = pairs.isEmpty ? "" : " " + pairs.joined(separator: " ")
    let text = "[\(event.source)] \(event.message)\(suffix)"
    let line =
      journal
      ? "<\(Self.priority(event.level))>\(text)\n"
      : "\(Date().formatted(.iso8601)) \(event.level) keychaind: \(text)\n"
    FileHandle.standardError.write(Data(line.utf8))
  }
}
