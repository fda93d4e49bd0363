// SPDX-License-Identifier: MIT
//
// KDE's KWallet: the names and numbers its files, its D-Bus API and its clients share.
// KWalletProtocol adds the D-Bus declarations to this namespace.

/// KDE's KWallet.
public enum KWallet {
  /// The wallet a KF5 client opens when its configuration names none.
  public static let defaultWalletName = "kdewallet"
  /// The local wallet's name when `Use One Wallet` is off and none is configured.
  public static let defaultLocalWalletName = "localwallet"

  /// The kind of an entry, as KWallet numbers them in its files and on the wire.
  public enum EntryType: Int32, Sendable, CaseIterable {
    case unknown = 0
    case password = 1
    case stream = 2
    case map = 3
  }
}
