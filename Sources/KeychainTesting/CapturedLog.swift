// SPDX-License-Identifier: MIT
//
// Log messages kept in memory, for tests that assert what a component logged: an object server
// that met an error its declarations do not list says so in its log, and the tests read it.

import Logging
import Synchronization

/// Collects the messages of the loggers it makes.
public final class CapturedLog: Sendable {
  private let entries = Mutex<[String]>([])

  public init() {}

  /// A logger whose messages (every level) are kept here.
  public func logger(label: String) -> Logger {
    Logger(label: label) { _ in Handler(log: self) }
  }

  /// Every message so far, oldest first.
  public var messages: [String] { entries.withLock { $0 } }

  /// The messages that say an error was answered that its method's declaration does not list.
  public var undeclaredErrors: [String] { messages.filter(Self.isUndeclaredError) }

  /// Whether a log line reports an error its declaration does not list (`ObjectServer`'s words).
  public static func isUndeclaredError(_ line: String) -> Bool {
    line.contains("which its declaration does not list")
  }

  private struct Handler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      log.entries.withLock { $0.append("\(event.level): \(event.message)") }
    }
  }
}
