// SPDX-License-Identifier: MIT
//
// Brings oo7's keyrings ($XDG_DATA_HOME/keyrings/v1/*.keyring, the v1 format) into keychaind's
// store with the gnome-keyring import's rules: every file is parsed whole before anything is
// derived or written; a file is merged into its collection in one transaction; the file is
// recorded, so an unchanged one is not read again and a changed one is merged again; oo7's
// directory is only read. `login` goes into keychaind's login collection, any other file into
// the collection of its name, labelled as oo7 shows it ("work" ⇒ "Work").
//
// Passwords tried: the ones given, then those gnome-keyring kept for its other keyrings in the
// login collection (oo7 migrated those keyrings with their own passwords). Item by item: a file
// may hold items under two passwords (libsecret never checks the one it writes with), so the
// items one password leaves closed are tried with the next. Items no password opens are named
// and the file waits for them; those that did open are in keychaind already.

import Foundation
import KeychainCrypto
import KeychainStore

/// oo7's directory of v1 keyrings.
public struct OO7Directory: Sendable {
  public let path: String

  public init(path: String) { self.path = path }

  /// `$XDG_DATA_HOME/keyrings/v1` (else `~/.local/share/keyrings/v1`), as oo7-daemon uses it.
  public static func standard(_ environment: [String: String]) -> OO7Directory {
    let data =
      environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    return OO7Directory(path: data + "/keyrings/v1")
  }

  /// The keyring files' stems (`login` first, then by name): `*.keyring`, not oo7's
  /// `.tmpkeyring*` temporaries nor libsecret's `*.keyring~` backups.
  public func keyringNames() -> [String] {
    KeyringDirectory(path: path).keyringNames()
  }
}

/// The importer of oo7's v1 keyrings into one store.
public struct OO7Importer: KeyringImporter {
  public static let kind = ImportSourceKind.oo7

  public let store: KeychainStore
  public let directory: OO7Directory
  /// Which items there a newer copy may replace (see `ImportUpdateRule`).
  public let updating: ImportUpdateRule

  public init(
    store: KeychainStore, directory: OO7Directory,
    updating: @escaping ImportUpdateRule = KeychainStore.unownedOnly
  ) {
    self.store = store
    self.directory = directory
    self.updating = updating
  }

  /// Imports every keyring these passwords open. With `dryRun`, reads and decrypts everything
  /// and writes nothing.
  public func run(
    passwords: [SecureBytes], dryRun: Bool = false,
    progress: (@Sendable (ImportProgress) -> Void)? = nil
  ) -> [ImportOutcome] {
    var passwords = passwords
    var keptRead = false
    // Login's kept passwords, read once and only for a file that needs opening (login's own
    // import may bring them, so not for login).
    func withKept() -> [SecureBytes] {
      if !keptRead {
        keptRead = true
        passwords += Self.keptPasswords(in: store)
      }
      return passwords
    }
    let sources = sources()
    return sources.enumerated().map { index, source in
      let file = source.file
      progress?(
        ImportProgress(file: file, fileIndex: index, files: sources.count, itemsDone: 0, items: 0))
      return importFile(
        file, collection: source.collection, label: Self.label(forStem: source.name),
        passwords: { source.name == "login" ? passwords : withKept() }, dryRun: dryRun
      ) { done, items in
        progress?(
          ImportProgress(
            file: file, fileIndex: index, files: sources.count, itemsDone: done, items: items))
      }
    }
  }

  /// oo7's keyring files, each into the collection of its name.
  public func sources() -> [FoundKeyring] {
    directory.keyringNames().map { name in
      FoundKeyring(
        name: name, file: directory.path + "/\(name).keyring",
        collection: Self.collectionName(forStem: name))
    }
  }

  /// Imports one v1 file into `collection` (made with `label` and the file's password if there
  /// is none): for oo7's directory, and for a v1 file met in gnome-keyring's, whose bytes are
  /// then `source`. `passwords` is asked only if the file changed since its last import.
  func importFile(
    _ file: String, source given: KeyringSource? = nil, collection: String, label: String,
    passwords: () -> [SecureBytes], dryRun: Bool, progress: @escaping (Int, Int) -> Void
  ) -> ImportOutcome {
    var outcome = ImportOutcome(
      kind: Self.kind, file: file, collection: collection, status: .failed)
    do {
      let source = try given ?? KeyringDirectory.readFile(file, name: collection)
      var record = GnomeKeyringImporter.record(source, collection: collection)
      if let previous = try store.importSource(path: file), previous.sameFile(as: record),
        !previous.result.contains(Self.waitingMark)
      {
        outcome.status = .unchanged
        return outcome
      }
      let keyring = try V1Keyring(parsing: source.bytes, file: file)
      guard let opened = try Self.open(keyring, passwords()) else {
        outcome.status = .pending
        outcome.reason = "no password known to keychaind opens it yet"
        return outcome
      }
      let items = try opened.contents.items.map {
        try Self.matchingGnomeKeyring(Self.imported($0), in: collection, store)
      }
      record.result =
        "\(items.count) item(s)"
        + (opened.contents.encrypted ? "" : GnomeKeyringImporter.unprotectedMark)
      let unopened = opened.contents.unopened
      if !unopened.isEmpty {
        record.result += Self.waitingMark + Self.positions(unopened)
      }
      try ImportMerge.apply(
        items, into: collection, label: label, password: opened.password, record: record,
        store: store, updating: updating, dryRun: dryRun, &outcome
      ) { progress($0, items.count) }
      let others = "the other \(items.count) " + (dryRun ? "would be imported" : "are imported")
      if !unopened.isEmpty {
        outcome.status = .pending
        outcome.reason =
          "\(Self.positions(unopened)) of \(keyring.itemCount) open with no password known to "
          + "keychaind (another password, or damage); \(others)"
      }
      if !opened.contents.damaged.isEmpty {
        outcome.status = .failed
        outcome.reason =
          opened.contents.damaged.map { "item \($0.index) is damaged: \($0.reason)" }
          .joined(separator: "; ") + "; \(others)"
      }
    } catch let error as KeyringFileError {
      outcome.reason = error.description
    } catch is CollectionLockedElsewhere {
      outcome.status = .pending
      outcome.reason = "keychaind's collection \(collection) is locked with another password"
    } catch {
      outcome.reason = "\(error)"
    }
    return outcome
  }

  /// The items the passwords open, each tried on what the ones before left closed, and the
  /// first password that opened any (the collection's, if one is made); the unencrypted
  /// flavour needs none. Nil when nothing opens.
  static func open(_ keyring: V1Keyring, _ passwords: [SecureBytes]) throws
    -> (contents: V1Contents, password: SecureBytes)?
  {
    if let plain = keyring.openUnencrypted() { return (plain, SecureBytes(count: 0) { _ in }) }
    var result: (contents: V1Contents, password: SecureBytes)?
    for password in passwords {
      let waiting = result?.contents.unopened
      if waiting?.isEmpty == true { break }
      guard let opened = try? keyring.open(password: password, positions: waiting) else {
        continue
      }
      if var sofar = result {
        sofar.contents.items += opened.items
        sofar.contents.damaged += opened.damaged
        sofar.contents.unopened = opened.unopened
        result = sofar
      } else {
        result = (opened, password)
      }
    }
    result?.contents.items.sort { $0.index < $1.index }
    return result
  }

  /// `item` with the `xdg:schema` of the item gnome-keyring's import brought for it, if there is
  /// one. oo7 drops gnome-keyring's item types when it migrates a keyring, while keychaind's
  /// import shows them as gnome-keyring did, as a schema: without this, the two copies of one
  /// item would not meet and the item would be there twice.
  static func matchingGnomeKeyring(
    _ item: ImportedItem, in collection: String, _ store: KeychainStore
  ) throws -> ImportedItem {
    guard item.attributes["xdg:schema"] == nil, try store.hasCollection(collection),
      !store.isLocked(collection)
    else { return item }
    let schemas = Set(AttributeConversion.schemas.values)
    // One indexed search finds the items holding all of these pairs. An item with none would
    // match every item: then each schema is looked up whole instead.
    let searches =
      item.attributes.isEmpty ? schemas.sorted().map { ["xdg:schema": $0] } : [item.attributes]
    for id in try searches.flatMap({ try store.searchItems($0, in: collection).unlocked }) {
      let info = try store.itemInfo(id)
      guard let schema = info.attributes["xdg:schema"], schemas.contains(schema),
        info.attributes.count == item.attributes.count + 1
      else { continue }
      var twin = item
      twin.attributes["xdg:schema"] = schema
      return twin
    }
    return item
  }

  /// Marks the record of a file that still holds items no password opened: it is read again.
  static let waitingMark = "; waiting: "

  /// "item 3", "items 2, 5".
  static func positions(_ indexes: [Int]) -> String {
    (indexes.count == 1 ? "item " : "items ") + indexes.map(String.init).joined(separator: ", ")
  }

  static func imported(_ item: V1Item) -> ImportedItem {
    ImportedItem(
      label: item.label, attributes: item.attributes, secret: item.secret,
      contentType: item.contentType, created: item.created, modified: item.modified)
  }

  /// The collection an oo7 file goes into: `login` for login, else its stem escaped as
  /// gnome-keyring escapes names (so that oo7's copy of a migrated keyring meets the original).
  public static func collectionName(forStem stem: String) -> String {
    stem.lowercased() == "login"
      ? KeychainStore.loginCollection : GnomeKeyringImporter.collectionName(forFile: stem)
  }

  /// The label oo7 shows for a file: its stem with the first letter upper-cased.
  static func label(forStem stem: String) -> String {
    stem.prefix(1).uppercased() + stem.dropFirst()
  }

  /// Unlocks the locked collections imported from oo7's directory that `password` opens, and
  /// returns their names: oo7-daemon tries the login password on every collection at login,
  /// and its users expect what it opened to be open.
  public static func unlockImported(in store: KeychainStore, password: SecureBytes) -> [String] {
    let names = ((try? store.importSources()) ?? [])
      .filter { $0.path.contains("/keyrings/v1/") }.map(\.collection)
    return Set(names).sorted().filter { name in
      store.isLocked(name) && (try? store.unlock(name, password: password)) != nil
    }
  }

  /// Passwords gnome-keyring kept for its other keyrings, in keychaind's login collection.
  static func keptPasswords(in store: KeychainStore) -> [SecureBytes] {
    let login = KeychainStore.loginCollection
    guard !store.isLocked(login),
      let found = try? store.searchItems(
        ["xdg:schema": "org.gnome.keyring.ChainedKeyring"], in: login)
    else { return [] }
    return found.unlocked.compactMap { try? store.secret(of: $0).0 }
  }
}
