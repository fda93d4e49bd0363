// SPDX-License-Identifier: MIT
//
// `org.kde.KWallet`'s folder and entry methods. Each names a handle and the application id it
// was opened with; a handle that is not the caller's, or whose wallet has locked since, gets
// the method's failure value (kwalletd5's: -1, false, empty), as does a store that cannot be
// read (logged).

import KWalletProtocol
import KeychainDBus
import KeychainDaemonCore
import KeychainStore

extension KWalletObject {
  static func addEntryMethods(to table: InterfaceTable<KWalletObject>) {
    table.on(Methods.folderList, folderList)
    table.on(Methods.hasFolder, hasFolder)
    table.on(Methods.createFolder, createFolder)
    table.on(Methods.removeFolder, removeFolder)
    table.on(Methods.entryList, entryList)
    table.on(Methods.readEntry, readEntry)
    table.on(Methods.readMap, readMap)
    table.on(Methods.readPassword, readPassword)
    table.on(Methods.readEntryList, readEntryList)
    table.on(Methods.entriesList, entriesList)
    table.on(Methods.readMapList, readMapList)
    table.on(Methods.mapList, mapList)
    table.on(Methods.readPasswordList, readPasswordList)
    table.on(Methods.passwordList, passwordList)
    table.on(Methods.renameEntry, renameEntry)
    table.on(Methods.writeEntryTyped, writeEntryTyped)
    table.on(Methods.writeEntry, writeEntry)
    table.on(Methods.writeMap, writeMap)
    table.on(Methods.writePassword, writePassword)
    table.on(Methods.hasEntry, hasEntry)
    table.on(Methods.entryType, entryType)
    table.on(Methods.removeEntry, removeEntry)
  }

  /// Runs `body` on the wallet behind `handle`, if the caller opened it with `appid` and it is
  /// still unlocked; `failure` otherwise, or when the store fails.
  private func withWallet<T>(
    _ request: MethodRequest, _ handle: Int32, _ appid: String, failure: T,
    _ body: (KWalletFolders, KWalletSession) async throws -> T
  ) async -> T {
    let view = StoreView(request, core: core)
    guard let session = sessions.session(handle, appid: appid, owner: request.caller),
      !view.isLocked(session.collection)
    else { return failure }
    do {
      return try await body(
        service.folders(session.collection, request), session)
    } catch {
      core.logger.warning("KWallet \(request.member) failed: \(error)")
      return failure
    }
  }

  // MARK: Folders

  func folderList(_ request: MethodRequest, handle: Int32, appid: String) async -> [String] {
    await withWallet(request, handle, appid, failure: []) { wallet, _ in try wallet.folders() }
  }

  func hasFolder(_ request: MethodRequest, handle: Int32, folder: String, appid: String) async
    -> Bool
  {
    await withWallet(request, handle, appid, failure: false) { wallet, _ in
      try wallet.hasFolder(folder)
    }
  }

  /// True if the folder is new.
  func createFolder(_ request: MethodRequest, handle: Int32, folder: String, appid: String)
    async -> Bool
  {
    await withWallet(request, handle, appid, failure: false) { wallet, session in
      // kwalletd5 sends this whether or not the folder was new.
      service.announce([.folderListChanged(collection: session.collection)], after: request)
      return try !wallet.hasFolder(folder)
        && sessions.addEmptyFolder(folder, in: session.collection)
    }
  }

  /// Deletes the folder with its entries; true if it existed.
  func removeFolder(_ request: MethodRequest, handle: Int32, folder: String, appid: String)
    async -> Bool
  {
    await withWallet(request, handle, appid, failure: false) { wallet, session in
      let removed = try await wallet.remove(folder)
      let wasEmpty = sessions.removeEmptyFolder(folder, in: session.collection)
      service.announce([.folderListChanged(collection: session.collection)], after: request)
      return removed > 0 || wasEmpty
    }
  }

  func entryList(_ request: MethodRequest, handle: Int32, folder: String, appid: String) async
    -> [String]
  {
    await withWallet(request, handle, appid, failure: []) { wallet, _ in
      try wallet.keys(in: folder)
    }
  }

  // MARK: Reading

  /// Any kind: a stream's bytes, a map's or a password's Qt form; empty if missing.
  func readEntry(
    _ request: MethodRequest, handle: Int32, folder: String, key: String, appid: String
  ) async -> [UInt8] {
    await withWallet(request, handle, appid, failure: []) { wallet, _ in
      try await wallet.askToRead(folder, key: key)
      return try wallet.entry(folder, key)?.wireValue ?? []
    }
  }

  /// A map's Qt form; empty if the entry is missing or not a map.
  func readMap(
    _ request: MethodRequest, handle: Int32, folder: String, key: String, appid: String
  ) async -> [UInt8] {
    await withWallet(request, handle, appid, failure: []) { wallet, _ in
      try await wallet.askToRead(folder, key: key)
      guard case .map(let map)? = try wallet.entry(folder, key) else { return [] }
      return QDataStream.encode(map)
    }
  }

  /// A password; empty if the entry is missing or not a password.
  func readPassword(
    _ request: MethodRequest, handle: Int32, folder: String, key: String, appid: String
  ) async -> String {
    await withWallet(request, handle, appid, failure: "") { wallet, _ in
      try await wallet.askToRead(folder, key: key)
      guard case .password(let text)? = try wallet.entry(folder, key) else { return "" }
      return text
    }
  }

  /// Every entry of the folder, as `readEntry` gives it, by key.
  func entriesList(_ request: MethodRequest, handle: Int32, folder: String, appid: String)
    async -> [String: DBusValue]
  {
    await list(request, handle, appid, folder) { $0.wireValue.dbusValue }
  }

  /// The folder's maps, in their Qt form, by key.
  func mapList(_ request: MethodRequest, handle: Int32, folder: String, appid: String) async
    -> [String: DBusValue]
  {
    await list(request, handle, appid, folder) {
      guard case .map(let map) = $0 else { return nil }
      return QDataStream.encode(map).dbusValue
    }
  }

  /// The folder's passwords, by key.
  func passwordList(_ request: MethodRequest, handle: Int32, folder: String, appid: String)
    async -> [String: DBusValue]
  {
    await list(request, handle, appid, folder) {
      guard case .password(let text) = $0 else { return nil }
      return text.dbusValue
    }
  }

  /// `entriesList` of the keys matching a wildcard pattern (deprecated).
  func readEntryList(
    _ request: MethodRequest, handle: Int32, folder: String, pattern: String, appid: String
  ) async -> [String: DBusValue] {
    await list(request, handle, appid, folder, pattern) { $0.wireValue.dbusValue }
  }

  /// `mapList` of the keys matching a wildcard pattern (deprecated).
  func readMapList(
    _ request: MethodRequest, handle: Int32, folder: String, pattern: String, appid: String
  ) async -> [String: DBusValue] {
    await list(request, handle, appid, folder, pattern) {
      guard case .map(let map) = $0 else { return nil }
      return QDataStream.encode(map).dbusValue
    }
  }

  /// `passwordList` of the keys matching a wildcard pattern (deprecated; python-keyring
  /// calls it with `*@*`).
  func readPasswordList(
    _ request: MethodRequest, handle: Int32, folder: String, pattern: String, appid: String
  ) async -> [String: DBusValue] {
    await list(request, handle, appid, folder, pattern) {
      guard case .password(let text) = $0 else { return nil }
      return text.dbusValue
    }
  }

  /// The folder's entries that `value` gives a value for, by key; with `pattern`, only the
  /// keys it matches.
  private func list(
    _ request: MethodRequest, _ handle: Int32, _ appid: String, _ folder: String,
    _ pattern: String? = nil, _ value: (KWalletEntry) -> DBusValue?
  ) async -> [String: DBusValue] {
    let matcher = pattern.map(WildcardPattern.init)
    return await withWallet(request, handle, appid, failure: [:]) { wallet, _ in
      try await wallet.askToRead(folder)
      var out: [String: DBusValue] = [:]
      for (key, entry) in try wallet.entries(in: folder, matching: { matcher?.matches($0) ?? true })
      {
        out[key] = value(entry)
      }
      return out
    }
  }

  func hasEntry(
    _ request: MethodRequest, handle: Int32, folder: String, key: String, appid: String
  ) async -> Bool {
    await withWallet(request, handle, appid, failure: false) { wallet, _ in
      try wallet.entryType(folder, key) != .unknown
    }
  }

  func entryType(
    _ request: MethodRequest, handle: Int32, folder: String, key: String, appid: String
  ) async -> Int32 {
    await withWallet(request, handle, appid, failure: KWallet.EntryType.unknown.rawValue) {
      wallet, _ in try wallet.entryType(folder, key).rawValue
    }
  }

  // MARK: Writing (on disk before the reply)

  /// Stores `value` as an entry of kind `type`: 0, or -1 for an unknown kind or a map that is
  /// not in Qt's form.
  func writeEntryTyped(
    _ request: MethodRequest, handle: Int32, folder: String, key: String, value: [UInt8],
    type: Int32, appid: String
  ) async -> Int32 {
    guard let kind = KWallet.EntryType(rawValue: type),
      let entry = KWalletEntry(wireValue: value, type: kind)
    else { return -1 }
    return await write(request, handle, appid, entry, folder, key)
  }

  /// Stores `value` as a stream.
  func writeEntry(
    _ request: MethodRequest, handle: Int32, folder: String, key: String, value: [UInt8],
    appid: String
  ) async -> Int32 {
    await write(request, handle, appid, .stream(value), folder, key)
  }

  /// Stores a map given in Qt's form; -1 if it is not.
  func writeMap(
    _ request: MethodRequest, handle: Int32, folder: String, key: String, value: [UInt8],
    appid: String
  ) async -> Int32 {
    guard let entry = KWalletEntry(wireValue: value, type: .map) else { return -1 }
    return await write(request, handle, appid, entry, folder, key)
  }

  func writePassword(
    _ request: MethodRequest, handle: Int32, folder: String, key: String, value: String,
    appid: String
  ) async -> Int32 {
    await write(request, handle, appid, .password(value), folder, key)
  }

  private func write(
    _ request: MethodRequest, _ handle: Int32, _ appid: String, _ entry: KWalletEntry,
    _ folder: String, _ key: String
  ) async -> Int32 {
    await withWallet(request, handle, appid, failure: -1) { wallet, _ in
      try await wallet.write(entry, folder, key)
      return 0
    }
  }

  /// 0 when removed, and (as kwalletd5) when the folder does not exist; -3 when the key does
  /// not; -1 for a bad handle.
  func removeEntry(
    _ request: MethodRequest, handle: Int32, folder: String, key: String, appid: String
  ) async -> Int32 {
    await withWallet(request, handle, appid, failure: -1) { wallet, session in
      guard try wallet.hasFolder(folder) else { return 0 }
      guard try await wallet.remove(folder, key: key) > 0 else {
        service.announce(
          [.folderChanged(collection: session.collection, folder: folder)], after: request)
        return -3
      }
      return 0
    }
  }

  /// 0 when renamed; -1 when the old key has no entry, the new one has, or the handle is bad.
  func renameEntry(
    _ request: MethodRequest, handle: Int32, folder: String, oldName: String, newName: String,
    appid: String
  ) async -> Int32 {
    await withWallet(request, handle, appid, failure: -1) { wallet, session in
      guard try await wallet.rename(folder, oldName, to: newName) else {
        service.announce(
          [.folderChanged(collection: session.collection, folder: folder)], after: request)
        return -1
      }
      return 0
    }
  }
}
