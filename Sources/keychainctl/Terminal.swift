// SPDX-License-Identifier: MIT
//
// Reading a secret: from a terminal with echo off (and a prompt on stderr), else everything on
// standard input.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

enum SecretInput {
  /// The secret: typed at a terminal without echo, or read whole from a pipe. A pipe's single
  /// trailing newline is kept for `store` (secret-tool keeps what it is given) and dropped by
  /// the password verbs when `trimNewline` is set.
  static func read(prompt: String, trimNewline: Bool) -> [UInt8] {
    if isatty(STDIN_FILENO) != 0 {
      FileHandle.standardError.write(Data(prompt.utf8))
      var saved = termios()
      tcgetattr(STDIN_FILENO, &saved)
      var quiet = saved
      quiet.c_lflag &= ~tcflag_t(ECHO)
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
      defer {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        FileHandle.standardError.write(Data("\n".utf8))
      }
      return Array((Swift.readLine(strippingNewline: true) ?? "").utf8)
    }
    var bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
    if trimNewline, bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
    return bytes
  }
}
