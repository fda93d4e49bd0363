// SPDX-License-Identifier: MIT

import Foundation

/// A fresh 0700 directory under the system's temp dir, removed with everything in it when freed.
public final class TemporaryDirectory: Sendable {
  /// The directory's absolute path.
  public let path: String

  /// Creates the directory; `prefix` makes leftovers recognisable.
  public init(prefix: String = "keychain-test") throws {
    let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
      throw TestingError("mkdtemp failed: errno \(errno)")
    }
    path = String(cString: made)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }
}
