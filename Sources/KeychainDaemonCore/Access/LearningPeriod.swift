// SPDX-License-Identifier: MIT
//
// `keychainctl access learn --for 7d`: a stretch of time whose reads, seen in `audit` mode,
// become grants at `learn --apply`. It is kept in a small file beside the audit log, so that it
// outlives a restart; it holds two times, nothing a grant could be made from (the reads
// themselves are in the chained audit log, which learning checks before it reads).

import Foundation
import KeychainSystem

/// A learning period (see the top of this file).
package struct LearningPeriod: Codable, Sendable, Equatable {
  /// When it began and ends, in Unix time.
  package var start: Double
  package var end: Double

  static let fileName = "learning.json"
  /// The longest period: a year. The log keeps fewer records than a year of reads anyway.
  package static let longest: UInt64 = 366 * 86400

  package init(start: Date = Date(), seconds: UInt64) {
    self.start = start.timeIntervalSince1970
    end = self.start + Double(seconds)
  }

  /// Whether a read at `date` falls in it.
  package func covers(_ date: Date) -> Bool {
    (start...end).contains(date.timeIntervalSince1970)
  }

  /// The period kept in `directory`, or nil when there is none (or its file is not one).
  package static func load(from directory: String) -> LearningPeriod? {
    guard let data = FileManager.default.contents(atPath: directory + "/" + fileName) else {
      return nil
    }
    return try? JSONDecoder().decode(LearningPeriod.self, from: data)
  }

  /// Keeps it in `directory`, durably.
  package func save(in directory: String) throws {
    let text = try JSONEncoder().encode(self)
    try SystemFiles.replace(atPath: directory + "/" + Self.fileName, with: Array(text))
  }

  /// Ends the period kept in `directory`; returns whether there was one.
  package static func discard(in directory: String) throws -> Bool {
    let path = directory + "/" + fileName
    guard FileManager.default.fileExists(atPath: path) else { return false }
    try FileManager.default.removeItem(atPath: path)
    return true
  }
}
