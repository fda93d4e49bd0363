// SPDX-License-Identifier: MIT
//
// KDE's `org.kde.KWallet` as a front end of the daemon: served at /modules/kwalletd5 and
// /modules/kwalletd6 (kwalletd5's and kwalletd6's paths) on the same store, its signals sent by
// an announcer that hears every store event.

import KWalletProtocol
import KeychainDBus
import KeychainDaemonCore

/// The KWallet API, for `SecretServiceDaemon.serve`; then ask for `KWallet.services`' names.
public struct KWalletFrontEnd: FrontEnd {
  let service: KWalletService

  /// KWallet on `core`; `kwalletrc` is KDE's settings file, for the wallet names its clients
  /// use by default.
  public init(core: DaemonCore, kwalletrc: String?) {
    service = KWalletService(core: core, kwalletrc: kwalletrc)
    core.addAnnouncer(KWalletAnnouncer(service: service))
  }

  public func mount(on tree: inout Mounts) {
    for (_, path) in KWallet.services {
      tree.mount(at: path) { [service] in [KWalletObject(service: service)] }
    }
  }

  public func callerLeft(_ peer: BusName, on connection: any MessageTransport) async {
    await service.callerLeft(peer, on: connection)
  }
}
