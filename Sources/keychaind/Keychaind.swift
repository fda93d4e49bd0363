// SPDX-License-Identifier: MIT
//
// keychaind: arguments, logging and wiring. The logic lives in the libraries.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainStore
import Logging
import SecretServiceServer

@main
struct Keychaind: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keychaind",
    abstract: "A Secret Service provider: owns org.freedesktop.secrets on the session bus.",
    discussion: """
      Runs in the foreground. With no session bus (DBUS_SESSION_BUS_ADDRESS unset) it starts a
      private one through dbus-run-session and prints its address for clients.
      """,
    version: "0.1.0")

  @Option(
    name: .customLong("data-dir"),
    help:
      "Where the store lives (default: data-dir in the configuration, or $XDG_DATA_HOME/keychaind)."
  )
  var dataDirectory: String?

  @Option(
    name: .customLong("config"),
    help: "The configuration file (default: $XDG_CONFIG_HOME/keychaind/keychaind.conf).")
  var configurationPath: String?

  @Flag(
    help: ArgumentHelp(
      "Create the login collection with a password, or unlock it.",
      discussion:
        "The password is typed without echo at a terminal, or read from standard input until its end."
    ))
  var unlock = false

  @Flag(help: "Take org.freedesktop.secrets over from the process that owns it.")
  var replace = false

  @Flag(help: "Log debugging detail (never secrets, passwords or attribute values).")
  var verbose = false

  func run() async throws {
    Hardening.apply()
    let level: Logger.Level = verbose ? .debug : .info
    let environment = ProcessInfo.processInfo.environment
    LoggingSystem.bootstrap { _ in JournalLogHandler(level: level, environment: environment) }
    let logger = Logger(label: "keychaind")
    guard let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"],
      !address.isEmpty
    else {
      try PrivateBus.reexecUnderPrivateBus(logger: logger)
    }
    // After the re-exec above: ignored signals survive exec, and dbus-run-session must not
    // inherit them.
    let lifetime = Lifetime()
    if ProcessInfo.processInfo.environment[PrivateBus.marker] != nil {
      // Printed on stdout, alone, so that scripts can read it.
      print("DBUS_SESSION_BUS_ADDRESS='\(address)'; export DBUS_SESSION_BUS_ADDRESS")
      fflush(nil)
    }

    let configuration: Configuration
    do {
      configuration = try Configuration.load(
        configurationPath ?? Configuration.defaultPath(environment),
        required: configurationPath != nil)
    } catch {
      logger.critical("\(error)")
      throw ExitCode(2)
    }

    // Read before anything else, so that a terminal prompt comes first.
    let password = unlock ? try LoginUnlock.readPassword() : nil

    let status = try Gcrypt.initialize()
    if !status.secureMemoryLocked {
      logger.warning("secure memory could not be locked in RAM (raise LimitMEMLOCK / ulimit -l)")
    }
    let directory =
      dataDirectory ?? configuration.dataDirectory ?? Self.defaultDataDirectory(environment)
    let store: KeychainStore
    do {
      store = try KeychainStore(directory: directory)
    } catch let error as StoreError {
      if case .damaged = error {
        // The store is there but would lose data if opened: never replaced by an empty one.
        logger.critical("cannot open the store: \(error)")
        throw ExitCode(6)
      }
      logger.critical("cannot open the store in \(directory): \(error)")
      throw ExitCode(2)
    } catch {
      logger.critical("cannot open the store in \(directory): \(error)")
      throw ExitCode(2)
    }

    let connection: Connection
    do {
      connection = try await Connection.sessionBus(logger: logger)
    } catch {
      logger.critical("cannot connect to the session bus at \(address): \(error.message)")
      throw ExitCode(3)
    }
    let pinentry = configuration.pinentryProgram(environment)
    logger.debug("password prompts through \(pinentry ?? "nothing (turned off)")")
    // With --unlock, the name is taken first and the key derived after: a client's first call
    // waits for the unlock instead of for the daemon, and nothing is created or unlocked
    // unless the name is ours.
    let daemon = SecretServiceDaemon(
      store: store, pinentry: pinentry, logger: logger, holdingCalls: password != nil)
    let result = try await daemon.publish(on: connection, replace: replace)
    guard result == .primaryOwner else {
      logger.critical(
        "org.freedesktop.secrets belongs to another process; use --replace to take it over")
      throw ExitCode(4)
    }
    logger.info("serving org.freedesktop.secrets from \(directory)")
    // Damage the file-level checks cannot see (a page inside the file): found at start, named.
    Task {
      if let problems = try? await Blocking.run({ try store.quickCheck() }), !problems.isEmpty {
        logger.error(
          "SQLite's quick_check finds \(directory)/keychain.db damaged (\(problems.prefix(3).joined(separator: "; "))); run keychainctl check for details"
        )
      }
    }
    if let password {
      try await Blocking.run {
        try LoginUnlock.run(store: store, password: password, logger: logger)
      }
      daemon.answerCalls()
      daemon.collectionsUnlocked([KeychainStore.loginCollection])
    }
    let reason = await lifetime.wait(for: connection)
    logger.info("stopping: \(reason)")
    await connection.close()
    do {
      try store.close()
    } catch {
      logger.warning("the write-ahead log could not be folded into keychain.db: \(error)")
    }
  }

  static func defaultDataDirectory(_ environment: [String: String]) -> String {
    let base =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    return base + "/keychaind"
  }
}
