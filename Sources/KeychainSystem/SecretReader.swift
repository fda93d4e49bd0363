// SPDX-License-Identifier: MIT
//
// A secret from a terminal or a pipe, straight into locked, wiped memory: never through a Swift
// `String` or an ordinary buffer. keychaind --unlock, keychainctl pam-unlock and keychainctl's
// password prompts all read through it.

import KeychainCrypto
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Reads secrets (see the top of this file).
public enum SecretReader {
  /// A secret that cannot be read.
  public enum Failure: Error, Equatable {
    /// Longer than the most that is accepted.
    case tooLong(maximum: Int)
    /// The read failed.
    case unreadable(Errno)
  }

  /// Which bytes a secret loses at its end.
  public enum Trailing: Sendable {
    /// None: what was given is the secret.
    case kept
    /// One newline (`echo pw | …`).
    case oneNewline
    /// Every newline and NUL (pam_exec ends the password with a NUL).
    case newlinesAndNULs
  }

  /// Whether `input` is a terminal.
  public static func isTerminal(_ input: FileDescriptor = .standardInput) -> Bool {
    isatty(input.rawValue) != 0
  }

  /// At a terminal: `prompt` written to the terminal itself (standard error may be a log), then
  /// one line typed with echo off. From a pipe or file: all of it. Then `trailing` is taken off.
  public static func read(
    from input: FileDescriptor = .standardInput, prompt: String, maximumLength: Int,
    trailing: Trailing
  ) throws(Failure) -> SecureBytes {
    let terminal = isTerminal(input)
    guard terminal else { return try readAll(input, maximumLength, trailing) }
    let tty = try? FileDescriptor.open(
      "/dev/tty", .writeOnly,
      options: [.closeOnExec, FileDescriptor.OpenOptions(rawValue: O_NOCTTY)])
    let say = { (text: String) in
      _ = Array(text.utf8).withUnsafeBytes { try? (tty ?? .standardError).writeAll(bytes: $0) }
    }
    var saved = termios()
    say(prompt)
    tcgetattr(input.rawValue, &saved)
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    tcsetattr(input.rawValue, TCSAFLUSH, &quiet)
    defer {
      tcsetattr(input.rawValue, TCSAFLUSH, &saved)
      say("\n")
      try? tty?.close()
    }
    return try readLine(input, maximumLength) ?? SecureBytes(count: 0) { _ in }
  }

  /// The next line of `input` (a pipe, say), without its newline (`\n` or `\r\n`); nil at
  /// the end of the input. Read a byte at a time: nothing after the line is consumed, so the
  /// next call gets the next line.
  public static func readLine(
    from input: FileDescriptor = .standardInput, maximumLength: Int
  ) throws(Failure) -> SecureBytes? {
    try readLine(input, maximumLength)
  }

  /// All of `input`, in locked memory.
  private static func readAll(_ input: FileDescriptor, _ maximum: Int, _ trailing: Trailing)
    throws(Failure) -> SecureBytes
  {
    let scratch = SecureScratch(capacity: maximum + 1)
    var count = 0
    do {
      count = try scratch.withUnsafeMutableBytes { try input.read(filling: $0) }
    } catch let error as Errno {
      throw .unreadable(error)
    } catch {
      throw .unreadable(.ioError)
    }
    guard count <= maximum else { throw .tooLong(maximum: maximum) }
    scratch.withUnsafeMutableBytes { buffer in
      switch trailing {
      case .kept: break
      case .oneNewline: if count > 0, buffer[count - 1] == 0x0A { count -= 1 }
      case .newlinesAndNULs:
        while count > 0, buffer[count - 1] == 0 || buffer[count - 1] == 0x0A { count -= 1 }
      }
    }
    return scratch.prefix(count)
  }

  /// One line, a byte at a time, without its newline; nil if the input ended before any byte.
  private static func readLine(_ input: FileDescriptor, _ maximum: Int) throws(Failure)
    -> SecureBytes?
  {
    let scratch = SecureScratch(capacity: maximum + 1)
    var count = 0
    var ended = false
    do {
      try scratch.withUnsafeMutableBytes { buffer in
        while count < buffer.count {
          let got = try input.read(
            into: UnsafeMutableRawBufferPointer(rebasing: buffer[count..<count + 1]))
          guard got > 0 else {
            ended = true
            return
          }
          if buffer[count] == 0x0A {
            if count > 0, buffer[count - 1] == 0x0D { count -= 1 }
            return
          }
          count += 1
        }
      }
    } catch let error as Errno {
      throw .unreadable(error)
    } catch {
      throw .unreadable(.ioError)
    }
    guard count <= maximum else { throw .tooLong(maximum: maximum) }
    if ended, count == 0 { return nil }
    return scratch.prefix(count)
  }
}
