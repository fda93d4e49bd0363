// SPDX-License-Identifier: MIT
//
// KDE's `org.kde.KWallet`, declared whole as Debian 12's kwalletd5 (KF 5.103) introspects it:
// every method with its overloads (`close`, `isOpen`, `writeEntry`) and every signal, the
// deprecated ones included, since clients still call them (python-keyring's
// `readPasswordList`). KWallet names no results, so the results here are unnamed too. Every
// KDE program reaches it through `KWallet::Wallet` on a fixed name and path: KF5's
// `org.kde.kwalletd5` at /modules/kwalletd5, KF6's `org.kde.kwalletd6` at /modules/kwalletd6.

// KWallet's data forms (entries, Qt's serialisation, kwalletrc) are KWalletFormat's, which has
// no D-Bus in it (the importer of KWallet files uses them too); they come with this module.
@_exported import KWalletFormat
import KeychainDBus

extension KWallet {
  public static let interface: InterfaceName = "org.kde.KWallet"

  /// The daemon's names, KF5's then KF6's, each with the one path its clients call.
  public static let services: [(name: BusName, path: ObjectPath)] = [
    ("org.kde.kwalletd5", "/modules/kwalletd5"), ("org.kde.kwalletd6", "/modules/kwalletd6"),
  ]

  /// The interface whole, in kwalletd5's order.
  public static let declaration = Interface(
    interface,
    methods: [
      Methods.isEnabled, Methods.open, Methods.openPath, Methods.openAsync, Methods.openPathAsync,
      Methods.closeWallet, Methods.closeHandle, Methods.sync, Methods.deleteWallet,
      Methods.isOpenWallet, Methods.isOpenHandle, Methods.users, Methods.changePassword,
      Methods.wallets, Methods.folderList, Methods.hasFolder, Methods.createFolder,
      Methods.removeFolder, Methods.entryList, Methods.readEntry, Methods.readMap,
      Methods.readPassword, Methods.readEntryList, Methods.entriesList, Methods.readMapList,
      Methods.mapList, Methods.readPasswordList, Methods.passwordList, Methods.renameEntry,
      Methods.writeEntryTyped, Methods.writeEntry, Methods.writeMap, Methods.writePassword,
      Methods.hasEntry, Methods.entryType, Methods.removeEntry, Methods.disconnectApplication,
      Methods.reconfigure, Methods.folderDoesNotExist, Methods.keyDoesNotExist,
      Methods.closeAllWallets, Methods.networkWallet, Methods.localWallet, Methods.pamOpen,
    ],
    signals: [
      Signals.walletListDirty, Signals.walletCreated, Signals.walletOpened,
      Signals.walletAsyncOpened, Signals.walletDeleted, Signals.walletClosed,
      Signals.walletClosedHandle, Signals.walletClosedId, Signals.allWalletsClosed,
      Signals.folderListUpdated, Signals.folderUpdated, Signals.applicationDisconnected,
    ])
}
