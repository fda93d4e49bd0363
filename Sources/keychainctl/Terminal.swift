// SPDX-License-Identifier: MIT
//
// Reading a secret: from a terminal with echo off (and a prompt on stderr), else from standard
// input.

import Foundation
import KeychainSystem

#if canImport(Glibc)
  import Glibc
#endif

enum SecretInput {
  static var isTerminal: Bool { isatty(STDIN_FILENO) != 0 }

  /// The secret: typed at a terminal without echo, or read whole from a pipe. A pipe's single
  /// trailing newline is kept for `store` (secret-tool keeps what it is given) and dropped by
  /// the password verbs when `trimNewline` is set.
  static func read(prompt: String, trimNewline: Bool) -> [UInt8] {
    if isTerminal { return typed(prompt: prompt) }
    var bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
    if trimNewline, bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
    return bytes
  }

  /// One line: typed at a terminal without echo, or the next line of a pipe (nil at its end),
  /// read into locked memory first (never through a `String`).
  static func line(prompt: String) -> [UInt8]? {
    if isTerminal { return typed(prompt: prompt) }
    let line = try? SecretReader.readLine(maximumLength: 4096)
    return line.map { $0.withUnsafeBytes { Array($0) } }
  }

  /// A new password: typed twice at a terminal (they must agree), or one line of a pipe.
  static func newPassword(prompt: String) throws -> [UInt8] {
    guard let password = line(prompt: prompt) else { throw InputError("no password given") }
    if isTerminal, typed(prompt: "Repeat it: ") != password {
      throw InputError("the passwords do not match")
    }
    return password
  }

  /// A line typed at the terminal with echo off: read into locked memory (never through a
  /// `String`), then handed to the client library, which sends it as bytes.
  private static func typed(prompt: String) -> [UInt8] {
    let line = try? SecretReader.read(prompt: prompt, maximumLength: 4096, trailing: .kept)
    return line?.withUnsafeBytes { Array($0) } ?? []
  }
}

/// Input that cannot be used, said plainly.
struct InputError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
