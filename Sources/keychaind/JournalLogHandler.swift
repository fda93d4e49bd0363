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

  /// UTC, ISO 8601, from the C library: Foundation's date formatting would load ICU, about
  /// 2.5 MB of resident memory for one timestamp format.
  static func timestamp() -> String {
    var now = time(nil)
    var parts = tm()
    gmtime_r(&now, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
      : "\(Self.timestamp()) \(event.level) keychaind: \(text)\n"
    FileHandle.standardError.write(Data(line.utf8))
  }
}
