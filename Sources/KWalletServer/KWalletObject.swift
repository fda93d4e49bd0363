// SPDX-License-Identifier: MIT
//
// `org.kde.KWallet` at /modules/kwalletd5 and /modules/kwalletd6: the wallets (this file) and
// their folders and entries (KWalletObject+Entries.swift). As kwalletd5 does, no method answers
// a D-Bus error for an ordinary failure: a bad handle, a missing wallet, folder or key, or a
// cancelled dialog is -1, false or an empty value, and every call is answered. Where keychaind
// answers differently from kwalletd5 on purpose, README's KDE section lists it with the reason.

import KWalletProtocol
import KeychainDBus
import KeychainDaemonCore
import KeychainStore

struct KWalletObject: DBusInterface {
  let service: KWalletService
  var core: DaemonCore { service.core }
  var sessions: KWalletSessions { service.sessions }

  typealias Methods = KWallet.Methods

  static let table = InterfaceTable<KWalletObject>(KWallet.declaration) { table in
    table.on(Methods.isEnabled) { _ in { _ in true } }
    table.on(Methods.open, open)
    table.on(Methods.openPath) { _ in { _, _, _, _ in -1 } }
    table.on(Methods.openAsync, openAsync)
    table.on(Methods.openPathAsync) { _ in { _, _, _, _, _ in -1 } }
    table.on(Methods.closeWallet, closeWallet)
    table.on(Methods.closeHandle, closeHandle)
    table.on(Methods.sync) { _ in { _, _, _ in } }
    table.on(Methods.deleteWallet, deleteWallet)
    table.on(Methods.isOpenWallet, isOpenWallet)
    table.on(Methods.isOpenHandle) { object in
      { _, handle in object.sessions.session(handle) != nil }
    }
    table.on(Methods.users, users)
    table.on(Methods.changePassword, changePassword)
    table.on(Methods.wallets, wallets)
    table.on(Methods.disconnectApplication, disconnectApplication)
    table.on(Methods.reconfigure) { object in { _ in object.service.reloadSettings() } }
    table.on(Methods.folderDoesNotExist, folderDoesNotExist)
    table.on(Methods.keyDoesNotExist, keyDoesNotExist)
    table.on(Methods.closeAllWallets, closeAllWallets)
    table.on(Methods.networkWallet) { object in { _ in object.service.settings.networkWallet } }
    table.on(Methods.localWallet) { object in { _ in object.service.settings.localWallet } }
    table.on(Methods.pamOpen, pamOpen)
    addEntryMethods(to: table)
  }

  // MARK: Opening and closing

  /// The handle, once the wallet is open (after a dialog, if it was locked); -1 if not.
  func open(_ request: MethodRequest, wallet: String, wId: Int64, appid: String) async -> Int32 {
    let handle = await service.open(wallet, appid: appid, request)
    // kwalletd5 ends every open with this signal; a synchronous one's transaction id is 0.
    service.announce([.opened(transaction: 0, handle: handle)], after: request)
    return handle
  }

  /// A transaction id at once; `walletAsyncOpened(id, handle)` follows, with -1 on failure
  /// (KDE's bridge sends nothing then, and its client waits for ever).
  func openAsync(
    _ request: MethodRequest, wallet: String, wId: Int64, appid: String, handleSession: Bool
  ) async -> Int32 {
    let transaction = sessions.nextTransaction()
    // After the reply, so that the client knows the id first; a dialog it may wait for does
    // not hold the connection.
    request.afterReply { [service] in
      let handle = await service.open(wallet, appid: appid, request)
      await service.announce(
        [.opened(transaction: transaction, handle: handle)], on: request.connection)
    }
    return transaction
  }

  /// With `force`, locks the wallet's collection (its handles close, with signals); without,
  /// 1 while handles are open, else 0 (it stays unlocked, as kwalletd5's default keeps
  /// wallets open); -1 if it is not open.
  func closeWallet(_ request: MethodRequest, wallet: String, force: Bool) async -> Int32 {
    let view = StoreView(request, core: core)
    guard let collection = try? service.collection(named: wallet, view), !view.isLocked(collection)
    else { return -1 }
    guard force else { return sessions.sessions(on: collection).isEmpty ? 0 : 1 }
    return lock(collection, view) ? 0 : -1
  }

  /// Ends the caller's session on `handle` (1 if it has none there, -1 for an unknown handle);
  /// with `force`, locks the wallet too.
  func closeHandle(_ request: MethodRequest, handle: Int32, force: Bool, appid: String) async
    -> Int32
  {
    guard let session = sessions.session(handle) else { return -1 }
    guard sessions.session(handle, appid: appid, owner: request.caller) != nil else { return 1 }
    if force { return lock(session.collection, StoreView(request, core: core)) ? 0 : -1 }
    sessions.remove { $0.handle == handle }
    return 0
  }

  /// Locks `collection`; the KWallet announcer then closes its handles.
  private func lock(_ collection: String, _ view: StoreView) -> Bool {
    guard (try? view.lock(collection)) != nil else { return false }
    view.record(.locked([collection]))
    return true
  }

  /// Locks every collection and closes every handle.
  func closeAllWallets(_ request: MethodRequest) async throws {
    let view = StoreView(request, core: core)
    view.record(.locked(try core.lockEverything()))
    // Handles on collections that were already locked close too.
    let closed = sessions.remove { _ in true }
    service.announce([.closed(closed)], after: request)
  }

  /// Refused (-1): kwalletd5 deletes a wallet for any caller without asking. Collections are
  /// deleted through the Secret Service (Seahorse, `keychainctl`), which asks.
  func deleteWallet(_ request: MethodRequest, wallet: String) async -> Int32 {
    core.logger.notice(
      "a KWallet client asked to delete the wallet \"\(wallet)\"; refused: delete collections with Seahorse or keychainctl"
    )
    return -1
  }

  func isOpenWallet(_ request: MethodRequest, wallet: String) async -> Bool {
    let view = StoreView(request, core: core)
    guard let collection = try? service.collection(named: wallet, view) else { return false }
    return !view.isLocked(collection)
  }

  /// The application ids with a handle on the wallet.
  func users(_ request: MethodRequest, wallet: String) async -> [String] {
    guard let collection = try? service.collection(named: wallet, StoreView(request, core: core))
    else { return [] }
    return KWalletFolders.qtOrder(Set(sessions.sessions(on: collection).map(\.appid)))
  }

  /// Runs the change-password dialog for the wallet's collection, after replying.
  func changePassword(_ request: MethodRequest, wallet: String, wId: Int64, appid: String)
    async
  {
    guard let collection = try? service.collection(named: wallet, StoreView(request, core: core))
    else { return }
    let core = core
    request.afterReply {
      let outcome = await core.prompter.run(.changePassword(collection: collection))
      await core.publish(outcome.events, on: request.connection)
    }
  }

  func wallets(_ request: MethodRequest) async -> [String] {
    (try? service.walletNames(StoreView(request, core: core))) ?? []
  }

  /// Ends every handle `application` has on the wallet; true if it had one.
  func disconnectApplication(_ request: MethodRequest, wallet: String, application: String)
    async -> Bool
  {
    guard let collection = try? service.collection(named: wallet, StoreView(request, core: core))
    else { return false }
    let dropped = sessions.remove { $0.collection == collection && $0.appid == application }
    guard !dropped.isEmpty else { return false }
    service.announce([.disconnected(wallet: wallet, application: application)], after: request)
    return true
  }

  /// True when the wallet does not exist or, open, has no such folder; false while it is
  /// locked ("may exist": keychaind keeps no readable index of names at rest).
  func folderDoesNotExist(_ request: MethodRequest, wallet: String, folder: String) async -> Bool {
    let view = StoreView(request, core: core)
    guard let collection = try? service.collection(named: wallet, view) else { return true }
    guard !view.isLocked(collection) else { return false }
    let folders = service.folders(collection, request)
    return !((try? folders.hasFolder(folder)) ?? true)
  }

  /// As `folderDoesNotExist`, for a key.
  func keyDoesNotExist(_ request: MethodRequest, wallet: String, folder: String, key: String)
    async -> Bool
  {
    let view = StoreView(request, core: core)
    guard let collection = try? service.collection(named: wallet, view) else { return true }
    guard !view.isLocked(collection) else { return false }
    let folders = service.folders(collection, request)
    return ((try? folders.entryType(folder, key)) ?? .password) == .unknown
  }

  /// KF5's kwallet-pam hands over a key derived for a KWallet file, which opens no collection
  /// here: keychaind is unlocked at login by pam_gnome_keyring or `keychaind --unlock`.
  func pamOpen(_ request: MethodRequest, wallet: String, hash: [UInt8], timeout: Int32) async {
    core.logger.notice(
      "kwallet-pam's pamOpen of \"\(wallet)\" ignored: keychaind unlocks at login through pam_gnome_keyring"
    )
  }
}
