// SPDX-License-Identifier: MIT
//
// Brings gnome-keyring's keyrings into keychaind's store. Every file is read and decrypted whole
// before anything is written; each keyring is merged into its collection in one transaction
// (same name, same item numbers where free, same labels, attributes, secrets and dates); what
// was imported is recorded so that an unchanged file is not read twice and a changed one is
// merged again. gnome-keyring's directory is only ever read.
//
// Passwords tried on an encrypted keyring: the ones given (the password that just unlocked or
// created a collection), then those gnome-keyring kept in `login` for other keyrings ("Unlock
// password for: …" items). A keyring none of them opens stays pending until a later unlock.

import Foundation
import KeychainCrypto
import KeychainStore

/// The importer of one gnome-keyring directory into one store.
public struct GnomeKeyringImporter: KeyringImporter {
  public static let kind = ImportSourceKind.gnomeKeyring

  public let store: KeychainStore
  public let directory: KeyringDirectory
  /// Which items there a newer copy may replace (see `ImportUpdateRule`).
  public let updating: ImportUpdateRule

  public init(
    store: KeychainStore, directory: KeyringDirectory,
    updating: @escaping ImportUpdateRule = KeychainStore.unownedOnly
  ) {
    self.store = store
    self.directory = directory
    self.updating = updating
  }

  /// Imports every keyring these passwords (and the ones kept in `login`) open. With `dryRun`,
  /// reads and decrypts everything and writes nothing.
  public func run(
    passwords: [SecureBytes], dryRun: Bool = false,
    progress: (@Sendable (ImportProgress) -> Void)? = nil
  ) -> [ImportOutcome] {
    var passwords = passwords
    var outcomes: [ImportOutcome] = []
    var chainedRead = false
    let sources = sources()
    // Other keyrings' passwords live in login, which may itself be unchanged: read once, for
    // the first other keyring that needs opening.
    func withChained() -> [SecureBytes] {
      if !chainedRead {
        chainedRead = true
        passwords += chainedPasswords(passwords)
      }
      return passwords
    }
    for (index, found) in sources.enumerated() {
      let (name, file, target) = (found.name, found.file, found.collection)
      progress?(
        ImportProgress(file: file, fileIndex: index, files: sources.count, itemsDone: 0, items: 0))
      var outcome = ImportOutcome(kind: Self.kind, file: file, collection: target, status: .failed)
      if let reason = directory.migratedByOO7(name) {
        outcome.status = .skipped
        outcome.reason = reason
        outcomes.append(outcome)
        continue
      }
      do {
        let source = try directory.read(name)
        if V1Keyring.looksLikeOne(source.bytes) {
          // libsecret's file backend on the host, or oo7-cli, writes v1 files here.
          let importer = OO7Importer(store: store, directory: OO7Directory(path: directory.path))
          let itemsDone = { (done: Int, items: Int) -> Void in
            progress?(
              ImportProgress(
                file: file, fileIndex: index, files: sources.count, itemsDone: done, items: items))
          }
          var imported = importer.importFile(
            file, source: source, collection: target, label: name,
            passwords: { name == "login" ? passwords : withChained() }, dryRun: dryRun,
            progress: itemsDone)
          // Found in gnome-keyring's directory: imported again with gnome-keyring's command.
          imported.kind = Self.kind
          outcomes.append(imported)
          continue
        }
        let record = Self.record(source, collection: target)
        if let previous = try store.importSource(path: source.path), previous.sameFile(as: record) {
          outcome.status = .unchanged
          outcomes.append(outcome)
          continue
        }
        guard
          let (contents, password) = try open(source, name == "login" ? passwords : withChained())
        else {
          outcome.status = .pending
          outcome.reason = "no password known to keychaind opens it yet"
          outcomes.append(outcome)
          continue
        }
        if name == "login" && !chainedRead {
          chainedRead = true
          passwords += Self.chainedPasswords(in: contents)
        }
        try apply(contents, password: password, record: record, dryRun: dryRun, &outcome) {
          progress?(
            ImportProgress(
              file: file, fileIndex: index, files: sources.count, itemsDone: $0,
              items: contents.items.count))
        }
      } catch let error as KeyringFileError {
        outcome.reason = error.description
      } catch is CollectionLockedElsewhere {
        outcome.status = .pending
        outcome.reason = "keychaind's collection \(target) is locked with another password"
      } catch {
        outcome.reason = "\(error)"
      }
      outcomes.append(outcome)
    }
    if !dryRun, outcomes.contains(where: { $0.status == .imported }) { adoptDefaultAlias() }
    return outcomes
  }

  /// The file's contents and the password that opened it (empty for a textual keyring), or nil
  /// when none of `passwords` does.
  private func open(_ source: KeyringSource, _ passwords: [SecureBytes]) throws
    -> (KeyringContents, SecureBytes)?
  {
    if TextualKeyring.looksLikeOne(source.bytes) {
      return (
        try TextualKeyring.parse(source.bytes, file: source.path), SecureBytes(count: 0) { _ in }
      )
    }
    let keyring = try BinaryKeyring(parsing: source.bytes, file: source.path)
    for password in passwords {
      do {
        return (try keyring.open(password: password), password)
      } catch KeyringFileError.wrongPassword {
        continue
      }
    }
    return nil
  }

  /// Merges a read keyring into its collection, made or unlocked with `password` if need be.
  private func apply(
    _ contents: KeyringContents, password: SecureBytes, record: ImportSource, dryRun: Bool,
    _ outcome: inout ImportOutcome, progress: (Int) -> Void
  ) throws {
    outcome.recovered = contents.items.filter(\.recovered).count
    outcome.accessEntries = contents.items.reduce(0) { $0 + $1.accessEntries }
    var described = record
    described.result =
      "\(contents.items.count) item(s)" + (contents.encrypted ? "" : Self.unprotectedMark)
    try ImportMerge.apply(
      contents.items.map(Self.imported), into: record.collection, label: contents.label,
      password: password, record: described, store: store, updating: updating, dryRun: dryRun,
      &outcome, progress: progress)
  }

  /// Points `default` where gnome-keyring's `default` file does, if keychaind's default is
  /// still its own first choice (`login`, or none).
  private func adoptDefaultAlias() {
    let wanted = Self.collectionName(forFile: directory.defaultName())
    let current = (try? store.alias("default")) ?? nil
    guard (try? store.hasCollection(wanted)) == true, current == nil || current == "login"
    else { return }
    try? store.setAlias("default", to: wanted)
  }

  /// Passwords of other keyrings that gnome-keyring keeps in `login`, if `login` is readable
  /// with one of `passwords`.
  private func chainedPasswords(_ passwords: [SecureBytes]) -> [SecureBytes] {
    guard directory.keyringNames().contains("login"),
      let source = try? directory.read("login"),
      let (contents, _) = try? open(source, passwords)
    else { return [] }
    return Self.chainedPasswords(in: contents)
  }

  /// Ends the record of an import from a keyring that had no password.
  static let unprotectedMark = ", no password"

  static func chainedPasswords(in login: KeyringContents) -> [SecureBytes] {
    login.items.filter {
      $0.attributes["xdg:schema"] == "org.gnome.keyring.ChainedKeyring"
        || $0.attributes["keyring"]?.hasPrefix("LOCAL:/keyrings/") == true
    }.map(\.secret)
  }

  static func imported(_ item: KeyringItem) -> ImportedItem {
    ImportedItem(
      label: item.label, attributes: item.attributes, secret: item.secret,
      preferredID: Int64(item.id), created: item.created, modified: item.modified)
  }

  static func record(_ source: KeyringSource, collection: String) -> ImportSource {
    ImportSource(
      path: source.path, collection: collection, device: source.device, inode: source.inode,
      size: source.size, modifiedNanoseconds: source.modifiedNanoseconds, sha256: source.sha256)
  }

  /// gnome-keyring's keyring files, each into the collection of its name.
  public func sources() -> [FoundKeyring] {
    directory.keyringNames().map { name in
      FoundKeyring(
        name: name, file: directory.path + "/\(name).keyring",
        collection: Self.collectionName(forFile: name))
    }
  }

  /// The collection a file goes into: its name as a D-Bus path element, as gnome-keyring
  /// escapes it (bytes other than letters and digits as `_xx`). `login_1`, `login_2`… are
  /// the keyrings gnome-keyring made when it could not read `login`: they go into `login`.
  public static func collectionName(forFile name: String) -> String {
    if name.hasPrefix("login_"), UInt(name.dropFirst("login_".count)) != nil { return "login" }
    return name.utf8.map { byte -> String in
      let isAlphanumeric =
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
      return isAlphanumeric
        ? String(UnicodeScalar(byte)) : "_" + String(byte, radix: 16).leftPadded(to: 2)
    }.joined()
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
