// SPDX-License-Identifier: MIT
//
// keychaind: arguments, logging and wiring. The logic lives in the libraries; the program is
// `Sources/KeychainMain`, which is keychainctl too.

import ArgumentParser
import Foundation
import KWalletProtocol
import KWalletServer
import KeychainAccess
import KeychainCredentials
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainSession
import KeychainStore
import KeychainSystem
import Logging
import ManagementServer
import PortalServer
import SecretServiceProtocol
import SecretServiceServer
import ShareServer

/// keychaind's command line, for the program's entry point (`Sources/KeychainMain`).
public enum KeychaindProgram {
  /// Parses the arguments and runs the daemon; exits the process.
  ///
  /// A start with flags alone, each once (D-Bus and systemd start it with none), does not go
  /// through ArgumentParser: its reflection of the command's properties cost every start
  /// 13 M instructions, a quarter of it. Anything else (`--help`, an option with a value, a
  /// mistake) is ArgumentParser's to read and answer.
  public static func main() async {
    guard let start = DaemonStart(flagsOnly: Array(CommandLine.arguments.dropFirst())) else {
      return await Keychaind.main()
    }
    do {
      try await start.run()
    } catch {
      Keychaind.exit(withError: error)
    }
  }
}

struct Keychaind: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keychaind",
    abstract: "A Secret Service provider: owns org.freedesktop.secrets on the session bus.",
    discussion: """
      Runs in the foreground. With no session bus (DBUS_SESSION_BUS_ADDRESS unset) it starts a \
      private dbus-daemon that ends with it, and prints its address for clients.
      """,
    version: Release.version)

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
        "The password is typed without echo at a terminal (twice when it makes the login collection), or read from standard input until its end."
    ))
  var unlock = false

  @Flag(
    help:
      "Take org.freedesktop.secrets over from its owner (gnome-keyring is asked to quit through its control socket)."
  )
  var replace = false

  @Flag(help: "Log debugging detail (never secrets, passwords or attribute values).")
  var verbose = false

  func run() async throws {
    try await DaemonStart(
      dataDirectory: dataDirectory, configurationPath: configurationPath, unlock: unlock,
      replace: replace, verbose: verbose
    ).run()
  }
}

/// What the command line chose (`Keychaind`), and the daemon's start and life (`run`).
struct DaemonStart {
  var dataDirectory: String?
  var configurationPath: String?
  var unlock = false
  var replace = false
  var verbose = false

  init(
    dataDirectory: String?, configurationPath: String?, unlock: Bool, replace: Bool,
    verbose: Bool
  ) {
    (self.dataDirectory, self.configurationPath) = (dataDirectory, configurationPath)
    (self.unlock, self.replace, self.verbose) = (unlock, replace, verbose)
  }

  /// The start `arguments` ask for when they are flags `Keychaind` declares, each given once;
  /// nil for anything else.
  init?(flagsOnly arguments: [String]) {
    guard Set(arguments).count == arguments.count else { return nil }
    for argument in arguments {
      switch argument {
      case "--unlock": unlock = true
      case "--replace": replace = true
      case "--verbose": verbose = true
      default: return nil
      }
    }
  }

  func run() async throws {
    Hardening.apply()
    let level: Logger.Level = verbose ? .debug : .info
    let environment = ProcessInfo.processInfo.environment
    LoggingSystem.bootstrap { _ in JournalLogHandler(level: level, environment: environment) }
    let logger = Logger(label: "keychaind")
    // Read before anything else, so that a terminal prompt comes first (and Ctrl-C there
    // still simply ends the process).
    let password = unlock ? try LoginUnlock.readPassword(logger: logger) : nil
    // Then: a SIGTERM that arrives while the daemon is still starting (after it took the bus
    // name, say) must end it cleanly, not by the default action.
    let lifetime = Lifetime()
    var address = environment["DBUS_SESSION_BUS_ADDRESS"] ?? ""
    var privateBus: pid_t?
    defer { if let privateBus { kill(privateBus, SIGTERM) } }
    if address.isEmpty {
      logger.notice("no session bus (DBUS_SESSION_BUS_ADDRESS is unset): starting a private one")
      do {
        let bus = try PrivateBus.start()
        (address, privateBus) = (bus.address, bus.pid)
      } catch {
        logger.critical("\(error)")
        throw ExitCode(3)
      }
      setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
      // Printed on stdout, alone, so that scripts can read it.
      print("DBUS_SESSION_BUS_ADDRESS='\(address)'; export DBUS_SESSION_BUS_ADDRESS")
      fflush(nil)
    }

    let configuration: Configuration
    let configurationFile = configurationPath ?? Configuration.defaultPath(environment)
    do {
      configuration = try Configuration.load(
        configurationFile, required: configurationPath != nil)
    } catch {
      logger.critical("\(error)")
      throw ExitCode(2)
    }

    let status = try Gcrypt.initialize()
    if !status.secureMemoryLocked {
      logger.warning("secure memory could not be locked in RAM (raise LimitMEMLOCK / ulimit -l)")
    }
    let connection: Connection
    do {
      connection = try await Connection.sessionBus(logger: logger)
    } catch {
      logger.critical("cannot connect to the session bus at \(address): \(error.message)")
      throw ExitCode(3)
    }
    let directory =
      dataDirectory ?? configuration.dataDirectory ?? Self.defaultDataDirectory(environment)
    // A password that makes a new store's login keyring is confirmed before another provider
    // is asked to quit for it (--replace): a typo must not leave the user with neither.
    let confirmed =
      password != nil && !FileManager.default.fileExists(atPath: directory + "/keychain.db")
    if let password, confirmed { try LoginUnlock.confirmNew(password, logger: logger) }
    // Nothing is opened, created or unlocked while another provider holds the name.
    try await Self.makeRoom(connection, replace: replace, environment, logger)
    let store = try Self.openStore(directory, logger)
    // Damage the file-level checks cannot see (a page inside the file): found beside the rest
    // of start-up, named, and from then on nothing is written to the file (see `WriteGate`).
    // Writes wait for it from here: it starts at once, as what follows may write.
    store.holdWritesUntilChecked()
    let startupCheck = Task {
      let problems = await Blocking.run { store.checkBeforeWriting() }
      if !problems.isEmpty {
        logger.critical(
          "SQLite's quick_check finds \(directory)/keychain.db damaged (\(problems.prefix(3).joined(separator: "; "))): keychaind reads it but writes nothing to it; export what it can read (keychainctl export), then restore a backup; run \(KeychainctlCommand.check) for details"
        )
      }
    }

    let pinentry = configuration.pinentryProgram(environment)
    logger.debug("password prompts through \(pinentry ?? "nothing (turned off)")")
    // With --unlock, the name is taken first and the key derived after: a client's first call
    // waits for the unlock instead of for the daemon.
    let daemon = SecretServiceDaemon(
      store: store, pinentry: pinentry, logger: logger, holdingCalls: password != nil,
      passwordHook: GnomeKeyringMigration.hook(
        store: store, environment: environment, logger: logger),
      lockDefaults: configuration.lockDefaults,
      access: AccessSettings(
        mode: configuration.accessControl,
        auditDirectory: AuditLog.defaultDirectory(environment),
        saveMode: { mode in
          try Configuration.set("access-control", to: mode.rawValue, in: configurationFile)
          return configurationFile
        }, notify: configuration.accessNotify))
    daemon.serve {
      ManagementFrontEnd(
        core: $0, tpm2TCTI: configuration.tpm2TCTI, fido2Device: configuration.fido2Device)
    }
    daemon.serve { PortalFrontEnd(core: $0) }
    let shares = ShareHost(core: daemon.core, environment: environment, logger: logger)
    daemon.serve { SharesFrontEnd(core: $0, host: shares) }
    if configuration.kwallet {
      daemon.serve { KWalletFrontEnd(core: $0, kwalletrc: KWalletSettings.path(environment)) }
    }
    let result = try await daemon.publish(on: connection, replace: replace)
    guard result == .primaryOwner else {
      let owner = await NameOwner.current(connection)
      logger.critical(
        "org.freedesktop.secrets belongs to \(owner?.description ?? "another process"); \(owner?.advice ?? "")"
      )
      throw ExitCode(4)
    }
    logger.info("serving org.freedesktop.secrets from \(directory)")
    if configuration.kwallet {
      await KWalletNames.take(daemon, connection, replace: replace, logger)
    }
    if let password {
      // gnome-keyring's items are imported before the first call is answered.
      let unlocker = daemon.unlocker
      try await Blocking.run {
        try LoginUnlock.run(unlocker, password: password, confirmed: confirmed, logger: logger)
      }
      daemon.answerCalls()
      daemon.collectionsUnlocked(try store.collections().map(\.name).filter { !store.isLocked($0) })
    }
    let control = LoginControl.start(
      LoginControl(
        store: store, core: daemon.core, transport: connection, environment: environment,
        logger: logger, stop: { lifetime.stop($0) }))
    let credentials = Self.serveCredentials(daemon.core, environment, logger)
    // A timer minute: shortened by the tests that run this binary.
    let minute = environment["KEYCHAIND_TEST_MINUTE_SECONDS"].flatMap(Double.init) ?? 60
    let autoLock = AutoLock(
      core: daemon.core, transport: connection, defaults: configuration.lockDefaults,
      logger: logger, minute: .seconds(minute))
    await autoLock.followScreenSaver(on: connection)
    let sessionLock = await SessionLock.start(environment: environment, autoLock: autoLock)
    let timers = autoLock.runTimers { await sessionLock?.refreshInhibitor() }
    // Start-up's code and the loader's relocation tables are not needed again: once it is
    // over (the quick check last), their pages leave the resident set (18 MiB of the 27 it
    // was idle at 100k items).
    Task.detached(priority: .utility) {
      await startupCheck.value
      try? await Task.sleep(for: .milliseconds(500))
      let released = ProcessControl.releaseStartupPages()
      logger.debug("start-up over: unmapped \(released >> 20) MiB of read-only program pages")
    }
    let reason = await lifetime.wait(for: connection)
    timers.cancel()
    logger.info("stopping: \(reason)")
    control?.close()
    credentials?.close()
    await shares.endAll()
    await connection.close()
    daemon.stopping()
    do {
      try store.close()
    } catch {
      logger.warning("the write-ahead log could not be folded into keychain.db: \(error)")
    }
  }

  /// Makes sure the name can be ours: without --replace a present owner ends the start
  /// (status 4, saying who it is and what to do); with it, a gnome-keyring owner is asked to
  /// quit, and any other owner is left to RequestName's replacement.
  static func makeRoom(
    _ connection: Connection, replace: Bool, _ environment: [String: String], _ logger: Logger
  ) async throws {
    guard let owner = await NameOwner.current(connection) else { return }
    guard replace else {
      logger.critical("org.freedesktop.secrets belongs to \(owner); \(owner.advice)")
      throw ExitCode(4)
    }
    if owner.isGnomeKeyring {
      _ = await Takeover.stopGnomeKeyring(
        owner, connection: connection, environment: environment, logger: logger)
    }
  }

  /// The store in `directory`; status 6 for a store that would lose data if opened, 2 for any
  /// other reason it cannot be used.
  static func openStore(_ directory: String, _ logger: Logger) throws -> KeychainStore {
    do {
      return try KeychainStore(directory: directory)
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
  }

  /// systemd's credentials socket, `$XDG_RUNTIME_DIR/keychaind/credentials`: the one systemd
  /// passed (keychaind-credentials.socket), else made here; nil, and one log line, when there
  /// is no runtime directory or the socket cannot be made.
  static func serveCredentials(
    _ core: DaemonCore, _ environment: [String: String], _ logger: Logger
  ) -> CredentialServer? {
    let source = CredentialGrants(core: core)
    if let adopted = CredentialServer.adopt(environment: environment, source: source) {
      logger.info(
        "systemd credentials (LoadCredential=): listening at \(adopted.path) (from systemd)")
      return adopted
    }
    guard let path = CredentialServer.defaultPath(environment) else { return nil }
    do {
      let server = try CredentialServer.listen(at: path, source: source)
      logger.info("systemd credentials (LoadCredential=): listening at \(path)")
      return server
    } catch {
      logger.warning("systemd credentials are off: cannot listen at \(path): \(error)")
      return nil
    }
  }

  static func defaultDataDirectory(_ environment: [String: String]) -> String {
    let base =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    return base + "/keychaind"
  }
}
