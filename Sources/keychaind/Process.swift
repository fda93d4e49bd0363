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
  static func run(store: KeychainStore, logger: Logger) throws {
    var bytes = [UInt8]()
    while let chunk = try FileHandle.standardInput.read(upToCount: 4096), !chunk.isEmpty {
      bytes += chunk
    }
    // A password typed with a trailing newline (echo pw | keychaind --unlock) means the line.
    if bytes.last == 0x0A { bytes.removeLast() }
    let password = SecureBytes(copying: bytes)
    for index in bytes.indices { bytes[index] = 0 }
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
