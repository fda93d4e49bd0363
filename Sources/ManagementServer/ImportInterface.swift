// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Import` on the service object: gnome-keyring's keyrings, oo7's
// and KDE's wallets imported on request, with passwords the caller sends through its session
// (`keychainctl import gnome-keyring`, `… oo7`, `… kwallet`), and backups made by `keychainctl export`
// restored. The same importers run by themselves at each unlock (see `PasswordHook`); this is
// for files that wait for another password, another directory, or a dry run.
//
// An import asked for by a program writes under the same rule as the program's own writes: a
// newer copy replaces an item only if the program may replace it (in `protect`), and each item
// written or kept goes to the audit log under the program's name.

import Foundation
import KWalletProtocol
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainImport
import KeychainStore
import Logging
import SecretServiceProtocol

struct ImportInterface: DBusInterface {
  let core: DaemonCore

  static let table = InterfaceTable<ImportInterface>(SecretService.Interfaces.importer) { table in
    table.on(SecretService.ImportMethods.importGnomeKeyring, importGnomeKeyring)
    table.on(SecretService.ImportMethods.importOO7, importOO7)
    table.on(SecretService.ImportMethods.importKWallet, importKWallet)
    table.on(SecretService.ImportMethods.importBackup, importBackup)
  }

  func importGnomeKeyring(
    _ request: MethodRequest, directory path: String, passwords secrets: [Secret], dryRun: Bool
  ) async throws -> [ImportFileReport] {
    let environment = ProcessInfo.processInfo.environment
    let directory =
      path.isEmpty ? KeyringDirectory.standard(environment) : KeyringDirectory(path: path)
    return try await importFiles(request, path, secrets, dryRun) { store, rule in
      GnomeKeyringImporter(store: store, directory: directory, updating: rule)
    }
  }

  /// oo7's v1 keyrings, with the passwords sent (see `OO7Importer`).
  func importOO7(
    _ request: MethodRequest, directory path: String, passwords secrets: [Secret], dryRun: Bool
  ) async throws -> [ImportFileReport] {
    let environment = ProcessInfo.processInfo.environment
    let directory = path.isEmpty ? OO7Directory.standard(environment) : OO7Directory(path: path)
    return try await importFiles(request, path, secrets, dryRun) { store, rule in
      OO7Importer(store: store, directory: directory, updating: rule)
    }
  }

  /// KDE's wallets, with the passwords sent and the entries mapped as the KWallet API maps
  /// them (see `KWalletImporter`).
  func importKWallet(
    _ request: MethodRequest, directory path: String, passwords secrets: [Secret], dryRun: Bool
  ) async throws -> [ImportFileReport] {
    let environment = ProcessInfo.processInfo.environment
    let directory =
      path.isEmpty ? KWalletDirectory.standard(environment) : KWalletDirectory(path: path)
    return try await importFiles(request, path, secrets, dryRun) { store, rule in
      KWalletImporter(
        store: store, directory: directory, settings: KWalletSettings(environment: environment),
        updating: rule)
    }
  }

  /// What the three file imports share: the caller's passwords, the importer `make` builds
  /// run on the store's writer with Progress signals under the caller's rule, its outcomes
  /// logged and announced (not for a dry run).
  private func importFiles(
    _ request: MethodRequest, _ path: String, _ secrets: [Secret], _ dryRun: Bool,
    _ make:
      @escaping @Sendable (KeychainStore, @escaping ImportUpdateRule) -> some KeyringImporter
  ) async throws -> [ImportFileReport] {
    let passwords = try checked(path, secrets, request)
    let view = StoreView(request, core: core)
    let progress = Self.progress(on: request.connection)
    let rule = view.importRule
    let outcomes = try await view.write { store in
      make(store, rule).run(passwords: passwords, dryRun: dryRun, progress: progress)
    }
    if !dryRun {
      view.record(
        contentsOf: StoreEvent.hooked(ImportReport.log(outcomes, core.logger), by: view.caller))
    }
    return outcomes.map(ImportFileReport.init)
  }

  /// The passwords a caller sent through its session, once the directory it names is known to
  /// be absolute (or empty: the importer's own).
  private func checked(_ path: String, _ secrets: [Secret], _ request: MethodRequest) throws
    -> [SecureBytes]
  {
    guard path.isEmpty || path.hasPrefix("/") else {
      throw DBusError(.invalidArgs, "the directory must be an absolute path")
    }
    return try secrets.map { try core.sessions.password(in: $0, caller: request.caller) }
  }

  /// Sends each step of an import as the Progress signal.
  private static func progress(on connection: any MessageTransport)
    -> @Sendable (ImportProgress) -> Void
  {
    { progress in
      let message = SecretService.ImportSignals.progress.message(
        from: SecretPath.base, progress.file, UInt32(clamping: progress.fileIndex),
        UInt32(clamping: progress.files), UInt32(clamping: progress.itemsDone),
        UInt32(clamping: progress.items))
      Task { try? await connection.send([message]) }
    }
  }

  /// A backup made by `keychainctl export`, restored with the same merge rules.
  func importBackup(_ request: MethodRequest, file: String, passphrase secret: Secret, dryRun: Bool)
    async throws -> [ImportFileReport]
  {
    let passphrase = try core.sessions.password(in: secret, caller: request.caller)
    guard file.hasPrefix("/") else {
      throw DBusError(.invalidArgs, "the backup file must be an absolute path")
    }
    let logger = core.logger
    let view = StoreView(request, core: core)
    let rule = view.importRule
    let outcomes = try await view.write { store in
      BackupRestore.run(
        store: store, file: file, passphrase: passphrase, dryRun: dryRun, updating: rule)
    }
    if !dryRun {
      view.record(
        contentsOf: StoreEvent.hooked(ImportReport.log(outcomes, logger), by: view.caller))
    }
    return outcomes.map(ImportFileReport.init)
  }

}

/// What an import did, in the log and on the bus.
public enum ImportReport {
  /// Logs a line per file imported, pending or failed; returns what clients must hear of.
  @discardableResult
  public static func log(_ outcomes: [ImportOutcome], _ logger: Logger) -> PasswordHookEffects {
    var effects = PasswordHookEffects()
    for outcome in outcomes {
      switch outcome.status {
      case .imported:
        let summary = ImportFileReport(outcome).summary
        logger.info("imported \(outcome.file) into collection \(outcome.collection): \(summary)")
        effects.note(outcome)
      case .unchanged:
        logger.debug("\(outcome.file) is unchanged since it was imported")
      case .pending:
        let retry =
          outcome.kind == .backup
          ? "" : "; it is tried again at each unlock, or with \(outcome.kind.command)"
        let what = outcome.added + outcome.updated + outcome.unchanged > 0 ? "partly" : "not"
        logger.notice("\(what) imported yet: \(outcome.file) (\(outcome.reason ?? ""))\(retry)")
        effects.note(outcome)
      case .failed:
        logger.error("cannot import \(outcome.reason ?? outcome.file); the file is left as it is")
        effects.note(outcome)
      case .skipped:
        logger.info("left alone: \(outcome.file) (\(outcome.reason ?? ""))")
      }
    }
    return effects
  }
}

extension ImportFileReport {
  /// One file's outcome as the import calls answer it (`keychainctl import` prints it).
  init(_ outcome: ImportOutcome) {
    self.init(
      file: outcome.file, collection: outcome.collection, status: outcome.status.rawValue,
      reason: outcome.reason)
    items = outcome.items
    added = outcome.added
    updated = outcome.updated
    unchanged = outcome.unchanged
    renumbered = outcome.renumbered
    recovered = outcome.recovered
    accessEntries = outcome.accessEntries
    portalKeys = outcome.portalKeys
    kept = outcome.keptItems.count
  }
}

extension PasswordHookEffects {
  /// What clients must hear of an import that wrote something: a file still waiting for some
  /// of its items, or with a damaged one, may have brought the others.
  fileprivate mutating func note(_ outcome: ImportOutcome) {
    if outcome.createdCollection { createdCollections.append(outcome.collection) }
    if !outcome.changedItems.isEmpty { changedCollections.append(outcome.collection) }
    imported.added += outcome.addedItems
    imported.updated += outcome.changedItems.filter { !outcome.addedItems.contains($0) }
    imported.kept += outcome.keptItems
  }
}
