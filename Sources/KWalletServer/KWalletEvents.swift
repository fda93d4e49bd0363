// SPDX-License-Identifier: MIT
//
// What happens to KWallet's own state, which no store change makes: a handle opened, handles
// closed, an application disconnected, an empty folder made or removed. Handlers say which
// (`KWalletEvent`), as the store's changes are said by `StoreEvent`, and kwalletd5's signals
// for them are built here and nowhere else; the announcer of store events builds its handle
// and folder signals here too. Every signal goes once from each path the API is served at.

import KWalletProtocol
import KeychainDBus

enum KWalletEvent {
  /// An open ended (`walletAsyncOpened`): `transaction` is 0 for a synchronous open, and
  /// `handle` -1 when the wallet could not be opened.
  case opened(transaction: Int32, handle: Int32)
  /// These handles closed: their wallet was locked or deleted, or every wallet was closed.
  case closed([KWalletSession])
  /// An application's handles on a wallet were ended.
  case disconnected(wallet: String, application: String)
  /// A collection's folder list changed with no entry changing (an empty folder).
  case folderListChanged(collection: String)
  /// A folder of a collection changed: an entry in it, or a rename or removal that found none.
  case folderChanged(collection: String, folder: String)
}

extension KWalletService {
  typealias Signals = KWallet.Signals

  /// kwalletd5's signals for `event`.
  func messages(for event: KWalletEvent) -> [Message] {
    switch event {
    case .opened(let transaction, let handle):
      return messages(Signals.walletAsyncOpened, transaction, handle)
    case .closed(let closed):
      return closedMessages(closed)
    case .disconnected(let wallet, let application):
      return messages(Signals.applicationDisconnected, wallet, application)
    case .folderListChanged(let collection):
      return names(of: collection).flatMap { messages(Signals.folderListUpdated, $0) }
    case .folderChanged(let collection, let folder):
      return names(of: collection).flatMap { messages(Signals.folderUpdated, $0, folder) }
    }
  }

  /// Announces `events` once `request` is answered, as kwalletd5's signals follow its replies.
  func announce(_ events: [KWalletEvent], after request: MethodRequest) {
    send(events.flatMap(messages(for:)), after: request)
  }

  /// Announces `events` on `connection` now.
  func announce(_ events: [KWalletEvent], on connection: any MessageTransport) async {
    await send(events.flatMap(messages(for:)), on: connection)
  }

  /// `signal` with `values`, once from each path the API is served at.
  func messages<each Argument: DBusRepresentable>(
    _ signal: Emits<repeat each Argument>, _ values: repeat each Argument
  ) -> [Message] {
    KWallet.services.map { signal.message(from: $0.path, repeat each values) }
  }

  /// The signals of `sessions` ending as kwalletd5 sends them when a wallet closes: per wallet
  /// name `walletClosed`, per handle `walletClosedId` and the deprecated `walletClosed(i)`, and
  /// `allWalletsClosed` when none is left.
  private func closedMessages(_ closed: [KWalletSession]) -> [Message] {
    guard !closed.isEmpty else { return [] }
    var messages: [Message] = []
    for wallet in KWalletFolders.qtOrder(Set(closed.map(\.wallet))) {
      messages += self.messages(Signals.walletClosed, wallet)
    }
    for session in closed {
      messages += self.messages(Signals.walletClosedId, session.handle)
      messages += self.messages(Signals.walletClosedHandle, session.handle)
    }
    if sessions.isEmpty { messages += self.messages(Signals.allWalletsClosed) }
    return messages
  }
}
