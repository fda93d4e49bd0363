// SPDX-License-Identifier: MIT
//
// `org.kde.KWallet`'s signals. A client's `KWallet::Wallet` listens to them on the path it
// calls, so the daemon sends each from every path it serves. `walletClosed` is overloaded:
// by name, and (deprecated) by handle; `walletClosedId` carries the handle too.

import KeychainDBus

extension KWallet {
  public enum Signals {
    private static let wallet = KWallet.interface

    public static let walletListDirty = BareSignal(wallet, "walletListDirty")
    public static let walletCreated = Emits<String>(wallet, "walletCreated", ["wallet"])
    public static let walletOpened = Emits<String>(wallet, "walletOpened", ["wallet"])
    /// The end of an `openAsync` (or `open`): its transaction id and the handle, -1 on failure.
    public static let walletAsyncOpened = Emits<Int32, Int32>(
      wallet, "walletAsyncOpened", ["tId", "handle"])
    public static let walletDeleted = Emits<String>(wallet, "walletDeleted", ["wallet"])
    /// `walletClosed(s wallet)`.
    public static let walletClosed = Emits<String>(wallet, "walletClosed", ["wallet"])
    /// `walletClosed(i handle)`, deprecated.
    public static let walletClosedHandle = Emits<Int32>(wallet, "walletClosed", ["handle"])
    public static let walletClosedId = Emits<Int32>(wallet, "walletClosedId", ["handle"])
    public static let allWalletsClosed = BareSignal(wallet, "allWalletsClosed")
    public static let folderListUpdated = Emits<String>(wallet, "folderListUpdated", ["wallet"])
    /// (wallet, folder); KWallet leaves both unnamed.
    public static let folderUpdated = Emits<String, String>(wallet, "folderUpdated", ["", ""])
    public static let applicationDisconnected = Emits<String, String>(
      wallet, "applicationDisconnected", ["wallet", "application"])
  }
}
