// SPDX-License-Identifier: MIT
//
// KWallet's signals for the store's changes, whichever API made them: an entry written,
// renamed or deleted (through KWallet, secret-tool or Seahorse) is `folderUpdated(wallet,
// folder)` for each name clients know its collection by; a collection locked closes its
// handles (`walletClosed`, …) since a KWallet client's handle is only good while its wallet
// is open; an unlock is `walletOpened`; collections made, renamed or deleted change the wallet
// list. The signals follow the reply of the call that made the change.
//
// KWallet's own state follows the store first (`react`: the names cache forgets what changed,
// handles of a locked or deleted wallet are closed), then the signals are built from the events
// and what that closed, without changing anything.

import KWalletProtocol
import KeychainDBus
import KeychainDaemonCore
import KeychainStore

struct KWalletAnnouncer: ChangeAnnouncer {
  let service: KWalletService
  typealias Signals = KWallet.Signals

  func announce(
    _ events: [StoreEvent], on connection: any MessageTransport, after request: MethodRequest?
  ) async {
    let closed = events.map(react(to:))
    // One of each: a write that replaced one item and deleted another is one folderUpdated.
    var seen: [Message] = []
    let messages = zip(events, closed).flatMap(messages(for:closed:)).filter { message in
      guard !seen.contains(where: { $0.sameSignal(as: message) }) else { return false }
      seen.append(message)
      return true
    }
    guard !messages.isEmpty else { return }
    if let request {
      request.afterReply { [service] in await service.send(messages, on: connection) }
    } else {
      await service.send(messages, on: connection)
    }
  }

  /// KWallet's state after `event`, before any signal: the listings' names cache forgets
  /// what changed, and the handles of a wallet locked or deleted are closed (a KWallet
  /// client's handle is only good while its wallet is open). Returns the handles closed.
  private func react(to event: StoreEvent) -> [KWalletSession] {
    switch event {
    case .itemCreated(let item), .itemReplaced(let item), .itemChanged(let item, _),
      .itemDeleted(let item, _):
      service.names.forget(item)
    case .itemsChanged(let collection):
      service.names.forget(collection: collection)
    case .collectionDeleted(let collection):
      service.names.forget(collection: collection)
      defer { service.sessions.forgetFolders(of: collection) }
      return service.sessions.remove { $0.collection == collection }
    case .lockChanged(let collections, _, true):
      for collection in collections { service.names.forget(collection: collection) }
      let names = Set(collections)
      return service.sessions.remove { names.contains($0.collection) }
    case .collectionCreated, .collectionChanged, .lockChanged, .itemsImported: break
    }
    return []
  }

  /// The signals for `event`, whose reaction closed the handles `closed`.
  private func messages(for event: StoreEvent, closed: [KWalletSession]) -> [Message] {
    switch event {
    case .itemCreated(let item), .itemReplaced(let item), .itemChanged(let item, _):
      let attributes = try? service.core.store.itemInfo(item).attributes
      return folderUpdated(item.collection, attributes)
    case .itemDeleted(let item, let attributes):
      return folderUpdated(item.collection, attributes)
    case .itemsChanged(let collection):
      return service.messages(for: .folderListChanged(collection: collection))
    case .collectionCreated(let collection):
      return service.names(of: collection).flatMap {
        service.messages(Signals.walletCreated, $0)
      } + service.messages(Signals.walletListDirty)
    case .collectionChanged:
      return service.messages(Signals.walletListDirty)
    case .collectionDeleted:
      return Set(closed.map(\.wallet)).sorted().flatMap {
        service.messages(Signals.walletDeleted, $0)
      } + service.messages(for: .closed(closed)) + service.messages(Signals.walletListDirty)
    case .lockChanged(let collections, let changed, let locked):
      if locked { return service.messages(for: .closed(closed)) }
      return collections.filter(changed.contains).flatMap { collection in
        service.names(of: collection).flatMap {
          service.messages(Signals.walletOpened, $0)
        }
      }
    case .itemsImported: return []
    }
  }

  /// `folderUpdated` for the folder an item's attributes name, if any.
  private func folderUpdated(_ collection: String, _ attributes: [String: String]?) -> [Message] {
    guard let folder = attributes?[KWalletEntry.folderAttribute] else { return [] }
    return service.messages(for: .folderChanged(collection: collection, folder: folder))
  }
}

extension Message {
  /// Whether `other` is the same signal: member, path and arguments.
  fileprivate func sameSignal(as other: Message) -> Bool {
    member == other.member && path == other.path && interface == other.interface
      && body == other.body
  }
}
