// SPDX-License-Identifier: MIT
//
// Child processes for tests, started through keychain_spawn: a child started from a
// Swift-concurrency thread would otherwise inherit a mask that blocks SIGTERM.

import Foundation
import KeychainSystem

#if canImport(Glibc)
  import Glibc
#endif

/// A child process started for a test; killed with SIGKILL if still running when freed.
public final class ChildProcess: @unchecked Sendable {
  // Invariant: `exitStatus` is only touched under `lock`.
  public let pid: pid_t
  private let lock = NSLock()
  private var exitStatus: Int32?

  /// The read end of the child's stdout, when `pipeStdout` was asked for.
  public let stdoutPipe: FileHandle?

  /// Starts `executable` (searched on PATH) with `arguments`.
  /// - Parameters:
  ///   - environment: the child's whole environment; nil keeps ours.
  ///   - stdinFile, stdoutFile, stderrFile: files for the standard streams (nil: /dev/null,
  ///     except stderr, which is inherited so that a failing daemon's message shows up).
  ///   - pipeStdout: give the child's stdout to `stdoutPipe` instead of a file.
  ///   - appendOutput: append to the output files rather than truncating them.
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    stdinFile: String? = nil, stdoutFile: String? = nil, stderrFile: String? = nil,
    pipeStdout: Bool = false, appendOutput: Bool = false
  ) throws {
    let mode = O_WRONLY | O_CREAT | (appendOutput ? O_APPEND : O_TRUNC)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdinFile ?? "/dev/null", O_RDONLY, 0)
    var pipeFDs: [Int32] = [-1, -1]
    if pipeStdout {
      guard pipe(&pipeFDs) == 0 else { throw TestingError("pipe failed: errno \(errno)") }
      posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
      posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
      posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
    } else {
      posix_spawn_file_actions_addopen(
        &actions, 1, stdoutFile ?? "/dev/null", mode, 0o600)
    }
    if let stderrFile {
      posix_spawn_file_actions_addopen(&actions, 2, stderrFile, mode, 0o600)
    }

    let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0)=\($1)" }
    var started = ProcessControl.spawn(
      executable, [executable] + arguments, environment: environment, actions: &actions)
    // A script a test has just written can still be open for writing in a child that another
    // test forked at that moment, until that child execs: ETXTBSY, gone within milliseconds.
    // Retried for up to a second, as Go's os/exec does.
    for _ in 0..<100 {
      guard case .failure(let error) = started, error.rawValue == ETXTBSY else { break }
      usleep(10_000)
      started = ProcessControl.spawn(
        executable, [executable] + arguments, environment: environment, actions: &actions)
    }
    if pipeStdout { close(pipeFDs[1]) }
    guard case .success(let child) = started else {
      if pipeStdout { close(pipeFDs[0]) }
      throw TestingError("cannot start \(executable): \(started)")
    }
    pid = child
    stdoutPipe = pipeStdout ? FileHandle(fileDescriptor: pipeFDs[0], closeOnDealloc: true) : nil
  }

  deinit {
    if exitStatus == nil {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
  }

  /// Sends `signal` to the child, unless it has exited: once reaped, its pid may be another
  /// process's. (One that exits after the check stays a zombie until this object reaps it, so
  /// its pid cannot be reused in between.)
  public func signal(_ signal: Int32) {
    if poll() == nil { kill(pid, signal) }
  }

  /// Waits for the child to exit, at most `timeout`; returns its exit code (128+N for signal N),
  /// or nil if it is still running when the time is up.
  @discardableResult
  public func wait(timeout: Duration = .seconds(30)) -> Int32? {
    let deadline = ContinuousClock.now + timeout
    while true {
      if let status = poll() { return status }
      if ContinuousClock.now >= deadline { return nil }
      usleep(2_000)
    }
  }

  /// The exit code if the child has exited, without waiting.
  public func poll() -> Int32? {
    lock.lock()
    defer { lock.unlock() }
    if let exitStatus { return exitStatus }
    var status: Int32 = 0
    guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
    let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    exitStatus = code
    return code
  }

  /// Reads one line from `stdoutPipe`, waiting at most `timeout`.
  public func readLine(timeout: Duration = .seconds(10)) throws -> String {
    guard let fd = stdoutPipe?.fileDescriptor else { throw TestingError("stdout is not piped") }
    var line: [UInt8] = []
    let deadline = ContinuousClock.now + timeout
    while true {
      var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let remaining = deadline - ContinuousClock.now
      guard remaining > .zero else { throw TestingError("no line from pid \(pid) in time") }
      let ms = Int32(remaining.components.seconds * 1000 + 1)
      guard Glibc.poll(&entry, 1, ms) > 0 else { continue }
      var byte: UInt8 = 0
      guard read(fd, &byte, 1) == 1 else { throw TestingError("pid \(pid) closed its stdout") }
      if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
      line.append(byte)
    }
  }
}

/// What a finished command printed and returned.
public struct CommandResult: Sendable {
  public var status: Int32
  public var stdout: String
  public var stderr: String
  /// The raw bytes of stdout, for binary output.
  public var stdoutBytes: [UInt8]
}

/// How long a test waits for a step that takes seconds before it calls the step hung. A bound
/// against hanging CI, never a speed check: on a busy machine under the sanitizers an Argon2id
/// unlock and a Python client's start took over two minutes (a 60 s bound failed CI), and a
/// real hang still ends well inside CI's 90 minutes.
public let hangBound = Duration.seconds(600)

/// Runs a command to completion with `stdin` as its input; fails if it runs past `timeout`.
public func runCommand(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
  stdin: [UInt8] = [], timeout: Duration = hangBound
) throws -> CommandResult {
  let dir = try TemporaryDirectory(prefix: "cmd")
  let input = dir.path + "/stdin"
  guard FileManager.default.createFile(atPath: input, contents: Data(stdin)) else {
    throw TestingError("cannot write \(input)")
  }
  let child = try ChildProcess(
    executable, arguments, environment: environment, stdinFile: input,
    stdoutFile: dir.path + "/stdout", stderrFile: dir.path + "/stderr")
  let status = child.wait(timeout: timeout)
  let out = (try? Data(contentsOf: URL(fileURLWithPath: dir.path + "/stdout"))) ?? Data()
  let err = (try? Data(contentsOf: URL(fileURLWithPath: dir.path + "/stderr"))) ?? Data()
  guard let status else {
    // Not left running, and what it said so far shows why it did not finish.
    child.signal(SIGKILL)
    _ = child.wait(timeout: .seconds(10))
    throw TestingError(
      "\(executable) \(arguments.joined(separator: " ")) did not finish in time; its stderr: "
        + String(decoding: err.suffix(2000), as: UTF8.self))
  }
  return CommandResult(
    status: status, stdout: String(decoding: out, as: UTF8.self),
    stderr: String(decoding: err, as: UTF8.self), stdoutBytes: Array(out))
}

/// `runCommand`, waited for on a thread of its own rather than on one of the cooperative pool's
/// (two on a 2-core machine). A test whose service runs in the test's own process (`DemoBus`)
/// needs a pool thread free to answer a call that suspends; blocking one while the command
/// waits for that answer, with another test blocking the other, left busctl's Properties.Set
/// unanswered until it timed out.
public func runCommandOnOwnThread(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
  stdin: [UInt8] = [], timeout: Duration = hangBound
) async throws -> CommandResult {
  try await withCheckedThrowingContinuation { continuation in
    Thread {
      continuation.resume(
        with: Result {
          try runCommand(
            executable, arguments, environment: environment, stdin: stdin, timeout: timeout)
        })
    }.start()
  }
}

extension ChildProcess {
  /// Waits until `ready` is true (a socket at its path, say), checking every 5 ms while the
  /// child runs; throws with `log` if it ends first, or after `hangBound`: a bound on a hang,
  /// not a guess at how long starting takes.
  public func waitUntil(_ ready: () -> Bool, log: @autoclosure () -> String) throws {
    let deadline = ContinuousClock.now + hangBound
    while !ready() {
      guard poll() == nil, ContinuousClock.now < deadline else {
        throw TestingError("it did not start: \(log())")
      }
      usleep(5_000)
    }
  }
}

/// A failure in the test harness itself.
public struct TestingError: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}
