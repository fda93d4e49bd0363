// SPDX-License-Identifier: MIT

import ArgumentParser
import CKeychainProcess
import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainStore
import Logging

/// Process-wide protections for a daemon that holds secrets.
enum Hardening {
  static func apply() {
    // No core dumps (they would hold secrets), no ptrace by same-user processes, private files.
    _ = keychain_disable_dumps()
    keychain_tune_allocator()
    var none = rlimit(rlim_cur: 0, rlim_max: 0)
    _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &none)
    umask(0o077)
  }
}

/// Running under a bus of our own when the user has none.
enum PrivateBus {
  static let marker = "KEYCHAIND_PRIVATE_BUS"

  /// Replaces this process with `dbus-run-session -- keychaind …`, once.
  static func reexecUnderPrivateBus(logger: Logger) throws -> Never {
    guard ProcessInfo.processInfo.environment[marker] == nil else {
      logger.critical("no session bus, and dbus-run-session did not provide one")
      throw ExitCode(3)
    }
    logger.notice("no session bus (DBUS_SESSION_BUS_ADDRESS is unset): starting a private one")
    setenv(marker, "1", 1)
    let arguments = ["dbus-run-session", "--"] + CommandLine.arguments
    var argv = arguments.map { strdup($0) } + [nil]
    execvp("dbus-run-session", &argv)
    logger.critical("cannot run dbus-run-session (install dbus-bin): errno \(errno)")
    throw ExitCode(3)
  }
}

/// `--unlock`: the headless route, like `gnome-keyring-daemon --unlock`.
enum LoginUnlock {
  /// The longest password accepted on standard input.
  static let maximumLength = 4096

  /// The password: typed without echo after a `Password:` prompt at a terminal (one line), or
  /// all of a pipe, one trailing newline dropped. It goes from the descriptor into locked,
  /// wiped memory, never through an ordinary buffer.
  static func readPassword() throws -> SecureBytes {
    let terminal = isatty(STDIN_FILENO) != 0
    var saved = termios()
    if terminal {
      FileHandle.standardError.write(Data("Password: ".utf8))
      tcgetattr(STDIN_FILENO, &saved)
      var quiet = saved
      quiet.c_lflag &= ~tcflag_t(ECHO)
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
    }
    defer {
      if terminal {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        FileHandle.standardError.write(Data("\n".utf8))
      }
    }
    let scratch = SecureScratch(capacity: maximumLength + 1)
    var count = 0
    try scratch.withUnsafeMutableBytes { buffer in
      while count < buffer.count {
        // One byte at a time at a terminal, so that nothing after the line is consumed.
        let wanted = terminal ? 1 : buffer.count - count
        let got = read(STDIN_FILENO, buffer.baseAddress! + count, wanted)
        if got < 0, errno == EINTR { continue }
        guard got > 0 else { break }
        count += got
        if terminal, buffer[count - 1] == 0x0A { break }
      }
      guard count <= maximumLength else {
        throw ValidationError(
          "the password on standard input is longer than \(maximumLength) bytes")
      }
      // A password typed with a trailing newline (echo pw | keychaind --unlock) means the line.
      if count > 0, buffer[count - 1] == 0x0A { count -= 1 }
    }
    return scratch.prefix(count)
  }

  /// Creates the login collection with `password`, or unlocks it; points `default` at it if
  /// no alias does. Exit status 5 for a password that does not unlock it.
  static func run(store: KeychainStore, password: SecureBytes, logger: Logger) throws {
    if try store.hasCollection(KeychainStore.loginCollection) {
      do {
        try store.unlock("login", password: password)
        logger.info("unlocked the login collection")
      } catch StoreError.wrongPassword {
        logger.critical("the password does not unlock the login collection")
        throw ExitCode(5)
      }
    } else {
      try store.createCollection(
        name: KeychainStore.loginCollection, label: "Login", password: password)
      logger.info("created the login collection")
    }
    if try store.alias("default") == nil {
      try store.setAlias("default", to: KeychainStore.loginCollection)
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
  // Invariant: `sources` is set once in init and only cancelled in `wait`.

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
