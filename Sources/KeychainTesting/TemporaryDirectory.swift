// SPDX-License-Identifier: MIT

import Foundation
import KeychainSystem
import SystemPackage

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

/// Writes a program to run, through a descriptor that no child can inherit.
///
/// Foundation's atomic write leaves its descriptor open across `fork`: a process another test
/// thread starts at that moment keeps the program open for writing for as long as it lives, and
/// every exec of the program then fails with ETXTBSY ("Text file busy").
public func writeExecutable(_ text: String, to path: String) throws {
  do {
    let file = try FileDescriptor.open(
      path: path, .writeOnly, options: [.create, .truncate, .closeOnExec],
      permissions: [.ownerReadWriteExecute])
    defer { file.closeQuietly() }
    try file.writeAll(text.utf8)
  } catch {
    throw TestingError("cannot write \(path): \(error)")
  }
}
