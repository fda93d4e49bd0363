// SPDX-License-Identifier: MIT
//
// Brings KDE's wallets ($XDG_DATA_HOME/kwalletd/*.kwl) into keychaind's store, with the
// gnome-keyring import's rules: every file is read and decrypted whole before anything is
// written; a wallet is merged into its collection in one transaction; what was imported is
// recorded, so an unchanged file is not read again and a changed one is merged again; a wallet
// no known password opens (or a GPG one) waits, reported; KWallet's directory is only read.
//
// Entries become items exactly as keychaind's KWallet API stores them (`KWalletEntry`), so KDE
// programs find them where they left them (items KDE's own Secret Service stored come back as
// they were, from the wallet's side file: `SecretServiceRecords`): the default wallet (kwalletrc's `Default Wallet`,
// `kdewallet` unless set) goes into keychaind's default collection, any other into the
// collection labelled with its name, made with the wallet's password if there is none. An
// item's time is the file's: an entry changed in keychaind since is kept over the file's.

import Foundation
import KWalletFormat
import KeychainCrypto
import KeychainStore

/// KWallet's directory of wallet files.
public struct KWalletDirectory: Sendable {
  public let path: String

  public init(path: String) { self.path = path }

  /// `$XDG_DATA_HOME/kwalletd`, usually `~/.local/share/kwalletd`.
  public static func standard(_ environment: [String: String]) -> KWalletDirectory {
    let data =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    return KWalletDirectory(path: data + "/kwalletd")
  }

  /// The wallets, by decoded name, and their files' stems, in name order.
  public func wallets() -> [(name: String, stem: String)] {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return files.filter { $0.hasSuffix(".kwl") }.map { String($0.dropLast(4)) }
      .map { (Self.decode($0), $0) }.sorted { $0.name < $1.name }
  }

  /// A file stem's wallet name: KWallet writes a byte outside its safe set as `;XX`.
  static func decode(_ stem: String) -> String {
    var bytes: [UInt8] = []
    var utf8 = Array(stem.utf8)[...]
    while let byte = utf8.popFirst() {
      if byte == UInt8(ascii: ";"), utf8.count >= 2,
        let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        utf8 = utf8.dropFirst(2)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// The importer of one KWallet directory into one store.
public struct KWalletImporter: KeyringImporter {
  public static let kind = ImportSourceKind.kwallet

  public let store: KeychainStore
  public let directory: KWalletDirectory
  /// kwalletrc's names: which wallet is the default one.
  public let settings: KWalletSettings
  /// Which items there a newer copy may replace (see `ImportUpdateRule`).
  public let updating: ImportUpdateRule

  public init(
    store: KeychainStore, directory: KWalletDirectory, settings: KWalletSettings,
    updating: @escaping ImportUpdateRule = KeychainStore.unownedOnly
  ) {
    self.store = store
    self.directory = directory
    self.settings = settings
    self.updating = updating
  }

  /// Imports every wallet one of `passwords` opens. With `dryRun`, reads and decrypts
  /// everything and writes nothing.
  public func run(
    passwords: [SecureBytes], dryRun: Bool = false,
    progress: (@Sendable (ImportProgress) -> Void)? = nil
  ) -> [ImportOutcome] {
    let wallets = sources()
    return wallets.enumerated().map { index, wallet in
      let file = wallet.file
      progress?(
        ImportProgress(file: file, fileIndex: index, files: wallets.count, itemsDone: 0, items: 0))
      var outcome = ImportOutcome(
        kind: Self.kind, file: file, collection: wallet.collection, status: .failed)
      do {
        try importWallet(
          wallet.collection, file: file, stem: wallet.name, passwords, dryRun, &outcome
        ) {
          progress?(
            ImportProgress(
              file: file, fileIndex: index, files: wallets.count, itemsDone: $0, items: $1))
        }
      } catch KeyringFileError.unsupported(_, let reason) where reason.hasPrefix("a GPG") {
        outcome.status = .pending
        outcome.reason = reason
      } catch let error as KeyringFileError {
        outcome.reason = error.description
      } catch {
        outcome.reason = "\(error)"
      }
      return outcome
    }
  }

  /// KDE's wallet files, each into the collection its wallet name resolves to.
  public func sources() -> [FoundKeyring] {
    directory.wallets().map { wallet in
      FoundKeyring(
        name: wallet.stem, file: directory.path + "/" + wallet.stem + ".kwl",
        collection: wallet.name)
    }
  }

  private func importWallet(
    _ name: String, file: String, stem: String, _ passwords: [SecureBytes], _ dryRun: Bool,
    _ outcome: inout ImportOutcome, progress: @escaping (Int, Int) -> Void
  ) throws {
    let source = try KeyringDirectory.readFile(file, name: name)
    if let previous = try store.importSource(path: file),
      previous.sameFile(as: Self.record(source, collection: previous.collection))
    {
      outcome.collection = previous.collection
      outcome.status = .unchanged
      return
    }
    let wallet = try KWalletFile(parsing: source.bytes, file: file)
    let salt = try? KeyringDirectory.readFile(directory.path + "/" + stem + ".salt", name: stem)
    var opened: (KWalletContents, SecureBytes)?
    for password in passwords where opened == nil {
      do {
        opened = (try wallet.open(password: password, salt: salt?.bytes), password)
      } catch KeyringFileError.wrongPassword {
        continue
      }
    }
    guard let (contents, password) = opened else {
      outcome.status = .pending
      outcome.reason = "no password known to keychaind opens it yet"
      return
    }
    let records = try SecretServiceRecords(
      reading: directory.path + "/" + stem + "_attributes.json")
    let items = try contents.entries.map {
      try records.item(for: $0) ?? Self.item($0, modified: source.modified)
    }
    outcome.items = items.count
    guard !dryRun else {
      // Named as the real import will name it.
      outcome.collection =
        try existingTarget(name) ?? GnomeKeyringImporter.collectionName(forFile: "kwallet_" + name)
      outcome.status = .imported
      outcome.added = items.count
      return
    }
    let collection = try target(name, password: password, &outcome)
    outcome.collection = collection
    guard !store.isLocked(collection) || (try? store.unlock(collection, password: password)) != nil
    else {
      outcome.status = .pending
      outcome.reason = "keychaind's collection \(collection) is locked with another password"
      return
    }
    var record = Self.record(source, collection: collection)
    record.result = "\(items.count) entries of the wallet \(name)"
    let report = try store.merge(items, into: collection, source: record, updating: updating) {
      progress($0, items.count)
    }
    outcome.record(report)
  }

  /// The collection a wallet goes into that exists already: the default one for KDE's default
  /// wallet, else the one labelled with its name.
  private func existingTarget(_ wallet: String) throws -> String? {
    if settings.isDefault(wallet), let collection = try store.alias("default") {
      return collection
    }
    return try store.collections().first { !$0.isInMemory && $0.label == wallet }?.name
  }

  /// The collection `wallet` goes into: the default one for the default wallet, else the one
  /// labelled with its name, made with its password if there is none.
  private func target(_ wallet: String, password: SecureBytes, _ outcome: inout ImportOutcome)
    throws -> String
  {
    if let existing = try existingTarget(wallet) { return existing }
    outcome.createdCollection = true
    let name = try store.createCollection(
      name: GnomeKeyringImporter.collectionName(forFile: "kwallet_" + wallet), label: wallet,
      password: password
    ).name
    if settings.isDefault(wallet), try store.alias("default") == nil {
      try store.setAlias("default", to: name)
    }
    return name
  }

  /// A file entry as the item keychaind's KWallet API would have stored.
  static func item(_ entry: KWalletFileEntry, modified: Date) throws -> ImportedItem {
    let value = entry.value.withUnsafeBytes { Array($0) }
    let mapped: KWalletEntry
    switch entry.type {
    case .password:
      mapped = .password(try QDataStream.decodeString(value))
    case .stream:
      mapped = .stream(value)
    case .map:
      mapped = .map(try QDataStream.decodeMap(value))
    case .unknown:
      throw KeyringFileError.unsupported(file: "", reason: "an entry of unknown kind")
    }
    return ImportedItem(
      label: KWalletEntry.label(folder: entry.folder, key: entry.key),
      attributes: mapped.attributes(folder: entry.folder, key: entry.key),
      secret: SecureBytes(copying: mapped.secret), contentType: KWalletEntry.contentType,
      modified: modified)
  }

  static func record(_ source: KeyringSource, collection: String) -> ImportSource {
    GnomeKeyringImporter.record(source, collection: collection)
  }
}

extension KeyringSource {
  /// The file's modification time.
  var modified: Date {
    Date(timeIntervalSince1970: TimeInterval(modifiedNanoseconds) / 1_000_000_000)
  }
}
