// SPDX-License-Identifier: MIT

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import KeychainSystem
import Logging
import SystemPackage

/// Process-wide protections for a daemon that holds secrets.
enum Hardening {
  static func apply() {
    // No core dumps (they would hold secrets), no ptrace by same-user processes, private files.
    ProcessControl.disableDumps()
    ProcessControl.tuneAllocator()
    var none = rlimit(rlim_cur: 0, rlim_max: 0)
    _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &none)
    umask(0o077)
  }
}

/// A bus of our own when the user has none: a `dbus-daemon` child that ends with keychaind,
/// whether keychaind stops on a signal, exits or dies (see `BusDaemon`). keychaind used to
/// re-execute itself under dbus-run-session, which left the bus and keychaind running when
/// dbus-run-session alone got the SIGTERM.
enum PrivateBus {
  /// Starts `dbus-daemon --session`; returns its address and pid.
  static func start() throws -> (address: String, pid: pid_t) {
    do {
      let bus = try BusDaemon.start(
        ["--session"],
        searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
      return (bus.address, bus.pid)
    } catch {
      throw ValidationError("no session bus, and none could be started: \(error)")
    }
  }
}

/// `--unlock`: the headless route, like `gnome-keyring-daemon --unlock`.
enum LoginUnlock {
  /// The longest password accepted on standard input.
  static let maximumLength = 4096

  /// The password: typed without echo after a `Password:` prompt at a terminal (one line), or
  /// all of a pipe, one trailing newline dropped. It goes from the descriptor into locked,
  /// wiped memory, never through an ordinary buffer. Exit status 2 when it cannot be read.
  static func readPassword(prompt: String = "Password: ", logger: Logger) throws -> SecureBytes {
    do {
      return try SecretReader.read(
        prompt: prompt, maximumLength: maximumLength, trailing: .oneNewline)
    } catch .tooLong(let maximum) {
      logger.critical("the password on standard input is longer than \(maximum) bytes")
    } catch .unreadable(let error) where SecretReader.isTerminal() {
      // EIO: the shell put keychaind in the background (`&`), where it may not read.
      logger.critical(
        "cannot read the password from the terminal (\(error)): a command in the background (&) cannot read it; run keychaind --unlock in the foreground, or give the password on standard input"
      )
    } catch .unreadable(let error) {
      logger.critical("cannot read the password from standard input: \(error)")
    }
    throw ExitCode(2)
  }

  /// At a terminal, a password that is to make the login keyring is typed twice, as `passwd`
  /// asks for a new one: a typo would otherwise become the keyring's password. Exit status 2
  /// when the two differ; nothing was made, and (with --replace) nothing asked to quit.
  static func confirmNew(_ password: SecureBytes, logger: Logger) throws {
    guard SecretReader.isTerminal() else { return }
    let again = try readPassword(
      prompt: "This makes your login keyring. The password again: ", logger: logger)
    guard again == password else {
      logger.critical("the passwords do not match: no login keyring was made")
      throw ExitCode(2)
    }
  }

  /// Creates the login collection with `password`, or unlocks it, and brings over what the
  /// password opens of gnome-keyring's (see `Unlocker.openLogin`). Exit status 5 for a
  /// password that does not unlock it. A login collection to be made is confirmed first
  /// (`confirmNew`), unless `confirmed` says that was done.
  static func run(
    _ unlocker: Unlocker, password: SecureBytes, confirmed: Bool, logger: Logger
  ) throws {
    if !confirmed, try !unlocker.hasLogin() { try confirmNew(password, logger: logger) }
    do {
      _ = try unlocker.openLogin(with: password, route: UnlockRecord.Route.commandLine)
    } catch StoreError.wrongPassword {
      logger.critical("the password does not unlock the login collection")
      throw ExitCode(5)
    }
  }
}

/// Waiting for the reason to stop: a signal, the name lost, or the bus gone.
///
/// Made at the very start of `run`: a SIGTERM that arrives while the daemon is still starting
/// (after it took the bus name, say) must end it cleanly, not by the default action.
final class Lifetime: Sendable {
  private let reasons: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation
  nonisolated(unsafe) private let sources: [DispatchSourceSignal]
  // Invariant: `sources` is set once in init and only cancelled in `wait`: the array never
  // changes after init, and a dispatch source may be cancelled from any thread.

  init() {
    (reasons, continuation) = AsyncStream<String>.makeStream()
    let continuation = continuation
    sources = [SIGTERM, SIGINT].map { signalNumber in
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber)
      source.setEventHandler { continuation.yield(signalNumber == SIGTERM ? "SIGTERM" : "SIGINT") }
      source.resume()
      return source
    }
  }

  /// Ends `wait` with `reason` (a QUIT through the control socket).
  func stop(_ reason: String) {
    continuation.yield(reason)
  }

  /// Returns the first reason to stop: a signal since `init`, or the end of `connection`.
  func wait(for connection: Connection) async -> String {
    let continuation = continuation
    let watcher = Task {
      for await event in connection.nameEvents {
        if case .lost = event { continuation.yield("lost the bus name to another process") }
      }
      continuation.yield("the bus connection closed")
    }
    var iterator = reasons.makeAsyncIterator()
    let reason = await iterator.next() ?? "stream ended"
    watcher.cancel()
    for source in sources { source.cancel() }
    return reason
  }
}
