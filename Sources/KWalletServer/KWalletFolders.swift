// SPDX-License-Identifier: MIT
//
// One wallet's folders and entries, read and written as items of its collection through the
// caller's `StoreView` (see `KWalletEntry` for the mapping). A key has one entry: writing it
// replaces the item with the same attributes and deletes the key's items of another KWallet
// kind (KDE's bridge leaves both and then reads either). Items another program stored with a
// `server` and `user` but no KWallet `type` are read as passwords and never deleted by a
// write. Lists are in Qt's order (by UTF-16 code units), as kwalletd5 answers them.

import KWalletProtocol
import KeychainCrypto
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

struct KWalletFolders {
  let view: StoreView
  let collection: String
  let sessions: KWalletSessions
  let names: KWalletNameCache

  private typealias Entry = KWalletEntry

  // MARK: Reads

  /// Every item matching `attributes` in this (unlocked) wallet, whether or not the caller may
  /// read it: names are shown to every program, as the Secret Service's are; reading asks.
  private func listed(_ attributes: [String: String]) throws -> [ItemID] {
    let (readable, locked) = try view.search(attributes, in: collection)
    return readable + locked
  }

  /// Every folder: those entries give, and those created empty.
  func folders() throws -> [String] {
    var folders = sessions.emptyFolders(in: collection)
    for item in try listed([:]) {
      if let folder = try names.names(of: item, view)?.folder { folders.insert(folder) }
    }
    return Self.qtOrder(folders)
  }

  /// Whether `folder` exists (holds an entry, or was created empty).
  func hasFolder(_ folder: String) throws -> Bool {
    try !listed([Entry.folderAttribute: folder]).isEmpty
      || sessions.emptyFolders(in: collection).contains(folder)
  }

  /// The keys of `folder`.
  func keys(in folder: String) throws -> [String] {
    let items = try listed([Entry.folderAttribute: folder])
    return Self.qtOrder(try items.compactMap { try names.names(of: $0, view)?.key })
  }

  /// Before a read of `folder` (its `key`, when one is named): asks about the entries the
  /// caller may not read yet (see `StoreView.askBeforeReading`), then notes those still
  /// refused; the read then gives what the caller may read.
  func askToRead(_ folder: String, key: String? = nil) async throws {
    var attributes = [Entry.folderAttribute: folder]
    if let key { attributes[Entry.keyAttribute] = key }
    let locked = try view.search(attributes, in: collection).locked
    guard !locked.isEmpty else { return }
    await view.askBeforeReading(locked)
    view.noteRefusedReads(locked)
  }

  /// The entry at `folder`/`key`, and the item holding it; nil when there is none or its
  /// secret is not of the form its type says.
  func entry(_ folder: String, _ key: String) throws -> KWalletEntry? {
    let candidates = try infos([Entry.folderAttribute: folder, Entry.keyAttribute: key])
    guard let best = Self.preferred(candidates.map(\.info)) else { return nil }
    return try read(best)
  }

  /// The kind of the entry at `folder`/`key` (`unknown` when there is none), read from its
  /// attributes alone.
  func entryType(_ folder: String, _ key: String) throws -> KWallet.EntryType {
    let items = try listed([Entry.folderAttribute: folder, Entry.keyAttribute: key])
    // One item, as nearly always: its remembered type; several: the one a read would take.
    if items.count == 1, let names = try names.names(of: items[0], view) {
      return Entry.entryType(typeAttribute: names.type)
    }
    let candidates = try items.compactMap { try view.info($0) }
    guard let best = Self.preferred(candidates) else { return .unknown }
    return Entry.entryType(typeAttribute: best.attributes[Entry.typeAttribute])
  }

  /// Every entry of `folder` whose key `matches`, by key.
  func entries(in folder: String, matching matches: (String) -> Bool = { _ in true }) throws
    -> [(key: String, entry: KWalletEntry)]
  {
    let byKey = Dictionary(grouping: try infos([Entry.folderAttribute: folder])) { $0.key ?? "" }
    return try Self.qtOrder(Set(byKey.keys)).compactMap { key in
      guard matches(key), let best = Self.preferred(byKey[key]!.map(\.info)),
        let entry = try read(best)
      else { return nil }
      return (key, entry)
    }
  }

  private func read(_ info: ItemInfo) throws -> KWalletEntry? {
    let secret = try view.secret(of: info.id).secret.withUnsafeBytes { Array($0) }
    return Entry(secret: secret, typeAttribute: info.attributes[Entry.typeAttribute])
  }

  /// The readable items matching `attributes`, with their keys.
  private func infos(_ attributes: [String: String]) throws -> [(key: String?, info: ItemInfo)] {
    try view.search(attributes, in: collection).readable.compactMap { item in
      try view.info(item).map { ($0.attributes[Entry.keyAttribute], $0) }
    }
  }

  /// Of several items for one key, the one a read gives: one KWallet or QtKeychain wrote (it
  /// has a KWallet `type`), else any; the newest of those.
  private static func preferred(_ infos: [ItemInfo]) -> ItemInfo? {
    infos.max { a, b in
      let typed = (
        Entry.typeValues.contains(a.attributes[Entry.typeAttribute] ?? ""),
        Entry.typeValues.contains(b.attributes[Entry.typeAttribute] ?? "")
      )
      return typed.0 != typed.1 ? !typed.0 : a.modified < b.modified
    }
  }

  /// Qt's order of QString keys: by UTF-16 code units. Each name's units are taken out once:
  /// comparing through `String.UTF16View` was 60 % of an `entryList` of 1,000 keys.
  static func qtOrder(_ names: some Collection<String>) -> [String] {
    // ASCII names, nearly always: Swift's own order is byte order, which is Qt's there.
    let sorted =
      names.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } })
      ? names.sorted()
      : names.map { (units: Array($0.utf16), name: $0) }
        .sorted { $0.units.lexicographicallyPrecedes($1.units) }.map(\.name)
    // Each once (a key several items share, a name repeated): equal ones are now neighbours.
    var unique: [String] = []
    unique.reserveCapacity(sorted.count)
    for name in sorted where name != unique.last { unique.append(name) }
    return unique
  }

  // MARK: Writes (each durable before it returns)

  /// Writes `entry` at `folder`/`key`, replacing what the key held.
  func write(_ entry: KWalletEntry, _ folder: String, _ key: String) async throws {
    let collection = collection
    let (owner, mayReplace) = (view.creator, view.mayReplace)
    let events = try await view.write(using: [collection]) { store -> [StoreEvent] in
      let attributes = entry.attributes(folder: folder, key: key)
      let (item, replaced) = try store.createItem(
        in: collection, label: Entry.label(folder: folder, key: key), attributes: attributes,
        secret: SecureBytes(copying: entry.secret), contentType: Entry.contentType,
        replace: true, owner: owner, mayReplace: mayReplace)
      var events: [StoreEvent] = [replaced ? .itemReplaced(item) : .itemCreated(item)]
      // The key's items of another KWallet kind go: one key, one entry.
      let others = try store.searchItems(
        [Entry.folderAttribute: folder, Entry.keyAttribute: key], in: collection
      ).unlocked
      for other in others where other != item && mayReplace(other) {
        let info = try store.itemInfo(other)
        guard let type = info.attributes[Entry.typeAttribute], Entry.typeValues.contains(type)
        else { continue }
        try store.deleteItem(other)
        events.append(.itemDeleted(other, attributes: info.attributes))
      }
      return events
    }
    sessions.removeEmptyFolder(folder, in: collection)
    view.record(contentsOf: events)
  }

  /// Deletes the items of `folder`/`key` (every item of `folder` without a key); returns how
  /// many went.
  func remove(_ folder: String, key: String? = nil) async throws -> Int {
    var attributes = [Entry.folderAttribute: folder]
    if let key { attributes[Entry.keyAttribute] = key }
    let items = try view.search(attributes, in: collection).readable
    guard !items.isEmpty else { return 0 }
    let events = try await view.write(using: [collection]) { store -> [StoreEvent] in
      try items.map { item in
        let attributes = try store.itemInfo(item).attributes
        try store.deleteItem(item)
        return .itemDeleted(item, attributes: attributes)
      }
    }
    view.record(contentsOf: events)
    return events.count
  }

  /// Renames `folder`/`old` to `folder`/`new` in place (its items keep their identity and
  /// times); false if `old` has no entry or `new` has one.
  func rename(_ folder: String, _ old: String, to new: String) async throws -> Bool {
    let items = try view.search(
      [Entry.folderAttribute: folder, Entry.keyAttribute: old], in: collection
    )
    .readable
    guard !items.isEmpty, try keys(in: folder).contains(new) == false else { return false }
    let label = Entry.label(folder: folder, key: new)
    let events = try await view.write(using: [collection]) { store -> [StoreEvent] in
      try items.map { item in
        var attributes = try store.itemInfo(item).attributes
        attributes[Entry.keyAttribute] = new
        try store.setAttributes(attributes, of: item)
        try store.setLabel(label, ofItem: item)
        // Secret Service clients hear the new values (libsecret's proxies cache them).
        let properties = SecretService.ItemProperty.attributes.changed(attributes).merging(
          SecretService.ItemProperty.label.changed(label)
        ) { $1 }
        return .itemChanged(item, properties: properties)
      }
    }
    view.record(contentsOf: events)
    return true
  }
}
