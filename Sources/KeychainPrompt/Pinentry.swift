// SPDX-License-Identifier: MIT
//
// A pinentry program, spoken to in the Assuan protocol as gpg-agent does, so that any flavour
// works (gnome3, qt, gtk2, curses, tty). Written against read(2) on a socket rather than a
// subprocess library: the PIN must go from the kernel into secure memory and nowhere else, and
// libraries hand output out as ordinary arrays that cannot be wiped.

import Foundation
import KeychainCrypto
import KeychainSystem
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Why a conversation with pinentry ended without an answer.
public enum PinentryError: Error, CustomStringConvertible {
  /// The program could not be started (not installed, not executable).
  case cannotStart(String)
  /// The user cancelled, or the dialog was cancelled from here (Dismiss, caller gone).
  case cancelled
  /// The program failed, went away or said something outside the protocol.
  case failed(String)
  /// The dialog's other button (`CONFIRM`'s "not OK"), which `confirm` answers as false.
  case notConfirmed

  public var description: String {
    switch self {
    case .cannotStart(let why): "cannot start pinentry: \(why)"
    case .cancelled: "cancelled"
    case .failed(let why): "pinentry failed: \(why)"
    case .notConfirmed: "not confirmed"
    }
  }
}

/// One running pinentry. `command` and `getPIN` block, and belong to one thread at a time;
/// `cancel` may be called from any thread.
final class Pinentry: @unchecked Sendable {
  // Invariant: `input` and `buffered` are touched only by the conversation's thread; the
  // process state is behind `process`, which `cancel` shares.
  private let socket: Int32
  private let wake: (read: Int32, write: Int32)
  private let process: Mutex<(pid: pid_t, exited: Bool)>
  private let input = SecureScratch(capacity: Pinentry.maxLine * 2)
  private var buffered = 0

  /// Assuan lines are at most 1000 bytes.
  static let maxLine = 1000
  /// The longest PIN taken; pinentry's own limit is lower.
  static let maxPIN = 4096

  /// Starts `program` (searched on PATH) and reads its greeting.
  init(program: String, environment: [String: String]) throws(PinentryError) {
    var pair: [Int32] = [-1, -1]
    var wakeFDs: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    // The second pair is the wake-up line that `cancel` writes to.
    guard socketpair(AF_UNIX, type, 0, &pair) == 0, socketpair(AF_UNIX, type, 0, &wakeFDs) == 0
    else { throw .cannotStart(String(cString: strerror(errno))) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // Assuan over one socket: the program reads commands on stdin and answers on stdout.
    posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
    posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
    let started = ProcessControl.spawn(
      program, [program], environment: environment.map { "\($0)=\($1)" }, actions: &actions)
    close(pair[1])
    socket = pair[0]
    wake = (wakeFDs[0], wakeFDs[1])
    switch started {
    case .success(let child):
      process = Mutex((child, false))
    case .failure(let error):
      process = Mutex((0, true))
      throw .cannotStart("\(program): \(error.description)")
    }
    _ = try readReply(into: SecureScratch(capacity: 0))
  }

  deinit {
    finish()
    close(socket)
    close(wake.read)
    close(wake.write)
  }

  /// Sends a command and waits for its `OK`; an `ERR` reply throws `failed`.
  func command(_ verb: String, _ argument: String? = nil) throws(PinentryError) {
    try send(verb, argument)
    _ = try readReply(into: SecureScratch(capacity: 0))
  }

  /// Asks for a PIN. Throws `cancelled` when the user cancels the dialog. `repeated` is true
  /// when the dialog had a confirmation field (SETREPEAT) and both entries agreed: pinentry
  /// says so with `S PIN_REPEATED`; a flavour without the field (curses) leaves it out.
  func getPIN() throws(PinentryError) -> (pin: SecureBytes, repeated: Bool) {
    try send("GETPIN", nil)
    let pin = SecureScratch(capacity: Self.maxPIN)
    let (length, statuses) = try readReply(into: pin)
    return (pin.prefix(length), statuses.contains("S PIN_REPEATED"))
  }

  /// Asks a yes/no question (`CONFIRM`): true for OK, false for "not confirmed"; a cancelled
  /// dialog throws `cancelled`.
  func confirm() throws(PinentryError) -> Bool {
    try send("CONFIRM", nil)
    do {
      _ = try readReply(into: SecureScratch(capacity: 0))
      return true
    } catch .notConfirmed {
      return false
    }
  }

  /// Ends the dialog from another thread: a blocked read returns at once and the program is
  /// told to stop.
  func cancel() {
    var byte: UInt8 = 1
    _ = write(wake.write, &byte, 1)
    process.withLock { state in
      if !state.exited { kill(state.pid, SIGTERM) }
    }
  }

  /// Says goodbye and reaps the program; after a grace period it is killed.
  func finish() {
    guard !process.withLock({ $0.exited }) else { return }
    try? send("BYE", nil)
    shutdown(socket, Int32(SHUT_RDWR))
    let pid = process.withLock { $0.pid }
    var status: Int32 = 0
    var reaped = false
    for _ in 0..<200 where !reaped {  // up to 2 s for a dialog to close its window
      reaped = waitpid(pid, &status, WNOHANG) == pid
      if !reaped { usleep(10_000) }
    }
    if !reaped {
      kill(pid, SIGKILL)
      waitpid(pid, &status, 0)
    }
    process.withLock { $0.exited = true }
  }

  // MARK: The protocol

  /// Assuan escapes `%`, CR and LF in arguments as `%XX`.
  static func escape(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "%": out += "%25"
      case "\r": out += "%0D"
      case "\n": out += "%0A"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  private func send(_ verb: String, _ argument: String?) throws(PinentryError) {
    var line = verb
    if let argument { line += " " + Self.escape(argument) }
    var bytes = Array(line.utf8.prefix(Self.maxLine - 1))
    bytes.append(0x0A)
    let socket = FileDescriptor(rawValue: socket)
    let sent = bytes.withUnsafeBytes { (try? socket.sendAll($0)) != nil }
    guard sent else { throw .failed("the program went away") }
  }

  /// Reads lines up to `OK`, collecting `D` data into `data`; returns the data's length and the
  /// status (`S`) lines that came before.
  private func readReply(into data: borrowing SecureScratch) throws(PinentryError)
    -> (length: Int, statuses: [String])
  {
    var length = 0
    var statuses: [String] = []
    while true {
      let end = try nextLineEnd()
      defer { consume(end + 1) }
      let isData = end >= 2 && input.withUnsafeMutableBytes { $0[0] == 0x44 && $0[1] == 0x20 }
      if isData {
        length = try decode(from: 2, to: end, into: data, at: length)
        continue
      }
      // Not a data line: no secret in it, so it may become a String.
      let text = input.withUnsafeMutableBytes { String(decoding: $0[0..<end], as: UTF8.self) }
      if text == "OK" || text.hasPrefix("OK ") { return (length, statuses) }
      if text.hasPrefix("ERR ") { throw Self.error(text) }
      if text.hasPrefix("INQUIRE") {
        try send("END", nil)  // we ask for nothing that needs inquiries; an empty answer
      } else if text.hasPrefix("S ") || text == "S" {
        statuses.append(text)
      } else if !text.hasPrefix("#") {
        throw .failed("unexpected reply '\(text.prefix(40))'")
      }
    }
  }

  /// `ERR <code> <text>`: gpg-error codes 99 (cancelled), 198 (fully cancelled) and 62
  /// (timeout) in the low 16 bits mean the user closed the dialog; 114 that the other button
  /// of a yes/no dialog was chosen. Any other failure is said in words, its code after them,
  /// without the source tag gpg-error appends (`<Pinentry>`).
  static func error(_ line: String) -> PinentryError {
    let fields = line.split(separator: " ", maxSplits: 2)
    let code = fields.count > 1 ? UInt32(fields[1]) ?? 0 : 0
    if [99, 198, 62].contains(code & 0xFFFF) { return .cancelled }
    if code & 0xFFFF == 114 { return .notConfirmed }
    // ENOTTY: a curses or tty pinentry started with no display, and no terminal to use.
    if code & 0xFFFF == 32870 {
      return .failed("it found no display and no terminal to show the dialog on")
    }
    var text = fields.count > 2 ? String(fields[2]) : ""
    if text.hasSuffix(">"), let tag = text.range(of: " <", options: .backwards) {
      text = String(text[..<tag.lowerBound])
    }
    return .failed("\(text.isEmpty ? "an error" : text) (code \(code))")
  }

  /// Percent-decodes input[from..<to] into `data` from `offset`; returns the new length.
  private func decode(
    from start: Int, to end: Int, into data: borrowing SecureScratch, at offset: Int
  )
    throws(PinentryError) -> Int
  {
    let result: Int? = input.withUnsafeMutableBytes { line in
      data.withUnsafeMutableBytes { out in
        var position = offset
        var index = start
        while index < end {
          guard position < out.count else { return nil }
          var byte = line[index]
          if byte == 0x25, index + 2 < end,
            let high = Self.hexValue(line[index + 1]), let low = Self.hexValue(line[index + 2])
          {
            byte = high << 4 | low
            index += 2
          }
          out[position] = byte
          position += 1
          index += 1
        }
        return position
      }
    }
    guard let result else { throw .failed("answer longer than \(data.capacity) bytes") }
    return result
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }

  // MARK: Reading

  /// The index of the next newline in the buffer, reading more as needed.
  private func nextLineEnd() throws(PinentryError) -> Int {
    while true {
      let found = input.withUnsafeMutableBytes { $0[0..<buffered].firstIndex(of: 0x0A) }
      if let found { return found }
      guard buffered < input.capacity else { throw .failed("line too long") }
      try fill()
    }
  }

  /// Waits for the program's output or a cancellation, and appends what arrived.
  private func fill() throws(PinentryError) {
    let (program, wakeUp) = (FileDescriptor(rawValue: socket), FileDescriptor(rawValue: wake.read))
    let ready: [Int]
    do {
      ready = try FileDescriptor.waitReadable([program, wakeUp])
    } catch {
      throw .failed("poll: \(error)")
    }
    if ready.contains(1) { throw .cancelled }
    let count: Int
    do {
      count = try input.withUnsafeMutableBytes { buffer in
        try program.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[buffered...]))
      }
    } catch {
      throw .failed("the program closed the connection: \(error)")
    }
    guard count > 0 else { throw .failed("the program closed the connection") }
    buffered += count
  }

  /// Drops the first `count` bytes, moving the rest forward and wiping what is left behind.
  private func consume(_ count: Int) {
    let remaining = buffered - count
    input.withUnsafeMutableBytes { buffer in
      if remaining > 0 {
        buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + count, byteCount: remaining)
      }
    }
    input.wipe(from: remaining)
    buffered = remaining
  }
}
