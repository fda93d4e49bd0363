// SPDX-License-Identifier: MIT
//
// KDE's KWallet API over the same store (see `KWalletObject` for the methods): which
// collection a wallet name means, opening one (unlocking it through the usual password dialog,
// one dialog however many callers wait for it), and sending KWallet's signals from every path
// it is served at. Wallet names resolve so that one keyring is one wallet: a collection labelled with
// the name; else, for the names kwalletrc makes the default (`kdewallet` unless configured),
// the `default` collection; else a new collection with that label, made through the
// new-password dialog.

import Foundation
import KWalletProtocol
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import Synchronization

/// The KWallet API's state beside the Secret Service's.
final class KWalletService: Sendable {
  let core: DaemonCore
  let sessions = KWalletSessions()
  /// Items' folders and keys, for listings.
  let names = KWalletNameCache()
  /// kwalletrc, read at start and on `reconfigure`; nil: the defaults.
  private let kwalletrc: String?
  private let settingsRead: Mutex<KWalletSettings>
  /// Unlocks in progress, by collection: a second `open` waits for the first one's dialog.
  private let unlocking = Mutex<[String: Task<Bool, Never>]>([:])

  init(core: DaemonCore, kwalletrc: String?) {
    self.core = core
    self.kwalletrc = kwalletrc
    settingsRead = Mutex(Self.read(kwalletrc))
  }

  /// The wallet names kwalletrc gives.
  var settings: KWalletSettings { settingsRead.withLock { $0 } }

  /// Reads kwalletrc again.
  func reloadSettings() {
    let fresh = Self.read(kwalletrc)
    settingsRead.withLock { $0 = fresh }
  }

  private static func read(_ path: String?) -> KWalletSettings {
    path.map(KWalletSettings.init(file:)) ?? KWalletSettings()
  }

  // MARK: Wallet names

  /// The collection `wallet` names, if any (rules 1 and 2 above).
  func collection(named wallet: String, _ view: StoreView) throws -> String? {
    guard !wallet.isEmpty else { return nil }
    if let labelled = try view.collections().first(where: { !$0.isInMemory && $0.label == wallet })
    {
      return labelled.name
    }
    return settings.isDefault(wallet) ? try view.alias("default") : nil
  }

  /// Every wallet name, one per collection: the default collection by the default names
  /// (kwalletrc's, `kdewallet` unless configured), any other by its label; in Qt's order. A
  /// KDE user sees one wallet for one keyring, whatever its label ("Login"); opening it by that
  /// label still works.
  func walletNames(_ view: StoreView) throws -> [String] {
    let defaultCollection = try view.alias("default")
    var names = Set<String>()
    for collection in try view.collections() where !collection.isInMemory {
      if collection.name == defaultCollection {
        names.formUnion([settings.networkWallet, settings.localWallet])
      } else if !collection.label.isEmpty {
        names.insert(collection.label)
      }
    }
    return KWalletFolders.qtOrder(names)
  }

  /// One wallet's folders and entries, as `request`'s caller sees them.
  func folders(_ collection: String, _ request: MethodRequest) -> KWalletFolders {
    KWalletFolders(
      view: StoreView(request, core: core), collection: collection, sessions: sessions,
      names: names)
  }

  /// The names KWallet's signals about `collection` carry: those its handles were opened by,
  /// as kwalletd5 names the wallet its clients opened; with none open, the name a client
  /// would open it by (the default name for the default collection, else its label).
  func names(of collection: String) -> [String] {
    let opened = Set(sessions.sessions(on: collection).map(\.wallet))
    if !opened.isEmpty { return opened.sorted() }
    if (try? core.store.alias("default")) == collection { return [settings.networkWallet] }
    let label = (try? core.store.collection(collection).label) ?? ""
    return label.isEmpty ? [] : [label]
  }

  // MARK: Opening

  /// Opens `wallet` for `appid` on the caller's connection: finds its collection (or makes
  /// it, through the new-password dialog), unlocks it if needed (through the password dialog)
  /// and returns a handle, or -1 when the dialog was cancelled or cannot be shown.
  func open(_ wallet: String, appid: String, _ request: MethodRequest) async -> Int32 {
    let view = StoreView(request, core: core)
    var found: String?
    do {
      found = try collection(named: wallet, view)
    } catch {
      core.logger.warning("KWallet open: the store could not be read: \(error)")
      return -1
    }
    if found == nil {
      found = await create(wallet, request)
    }
    guard let collection = found else { return -1 }
    if view.isLocked(collection) {
      guard await unlock(collection, on: request.connection) else { return -1 }
    }
    return sessions.open(
      wallet: wallet, collection: collection, appid: appid, owner: request.caller)
  }

  /// A new collection labelled `wallet` (the default one, if kwalletrc makes `wallet` a
  /// default name and there is none), made through the new-password dialog.
  private func create(_ wallet: String, _ request: MethodRequest) async -> String? {
    let alias = settings.isDefault(wallet) && (try? core.store.alias("default")) == nil
    let outcome = await core.prompter.run(
      .createCollection(label: wallet, alias: alias ? "default" : ""))
    await core.publish(outcome.events, on: request.connection)
    return outcome.created
  }

  /// Unlocks `collection` through the password dialog; callers that ask while a dialog for it
  /// is up wait for that one. True once it is unlocked.
  func unlock(_ collection: String, on connection: any MessageTransport) async -> Bool {
    let core = core
    let task = unlocking.withLock { running in
      if let task = running[collection] { return task }
      let task = Task {
        let outcome = await core.prompter.run(
          .unlock(
            collections: [collection], objects: [Resolver.path(ofCollection: collection)]))
        await core.publish(outcome.events, on: connection)
        return !core.store.isLocked(collection)
      }
      running[collection] = task
      return task
    }
    let unlocked = await task.value
    unlocking.withLock { running in
      if running[collection] == task { running[collection] = nil }
    }
    return unlocked
  }

  // MARK: Signals

  /// Sends `messages` (a signal that cannot be sent fails nothing: the change is made).
  func send(_ messages: [Message], on connection: any MessageTransport) async {
    guard !messages.isEmpty else { return }
    try? await connection.send(messages)
  }

  /// Sends `messages` once `request` is answered, as kwalletd5's signals follow its replies.
  func send(_ messages: [Message], after request: MethodRequest) {
    guard !messages.isEmpty else { return }
    request.afterReply { [self] in await send(messages, on: request.connection) }
  }

  /// A caller left the bus: its handles go, and its applications are disconnected.
  func callerLeft(_ peer: BusName, on connection: any MessageTransport) async {
    let left = sessions.remove { $0.owner == peer }
    guard !left.isEmpty else { return }
    let apps = Set(left.map { [$0.wallet, $0.appid] })
    let events = apps.sorted { $0.lexicographicallyPrecedes($1) }.map {
      KWalletEvent.disconnected(wallet: $0[0], application: $0[1])
    }
    await announce(events, on: connection)
  }
}
