// SPDX-License-Identifier: MIT
//
// KDE's names: org.kde.kwalletd5 and org.kde.kwalletd6, which every KWallet client calls. A
// kwalletd that already owns one does not allow replacement, so keychaind queues for it (the
// bus hands it over when kwalletd exits) and says who holds it. With --replace, a kwalletd
// owner is asked to write its open wallets to disk (closeAllWallets) and then to quit.

import Foundation
import KWalletProtocol
import KeychainDBus
import KeychainDaemonCore
import Logging
import SecretServiceServer

enum KWalletNames {
  static func take(
    _ daemon: SecretServiceDaemon, _ connection: Connection, replace: Bool, _ logger: Logger
  ) async {
    let names = KWallet.services.map(\.name)
    let results: [NameRequestResult]
    do {
      results = try await daemon.requestAdditionalNames(
        names, on: connection, replace: replace, queue: true)
    } catch {
      logger.warning("KDE's KWallet names could not be requested: \(error)")
      return
    }
    var waiting: [BusName] = []
    for (name, result) in zip(names, results) where result != .primaryOwner {
      let owner = await NameOwner.current(connection, name: name)
      guard let owner, replace, owner.isKWalletDaemon else {
        logger.warning(
          "\(name) belongs to \(owner?.description ?? "another process"): KDE applications reach it, not keychaind, until it exits (keychaind is queued for the name) or keychaind starts with --replace"
        )
        continue
      }
      await stop(owner, name, connection, logger)
      waiting.append(name)
    }
    for name in waiting {
      if await wait(for: name, connection) {
        logger.info("took \(name) over from kwalletd")
      } else {
        logger.warning("\(name) is still not keychaind's after asking kwalletd to quit")
      }
    }
  }

  /// Asks kwalletd to write its wallets and quit.
  private static func stop(
    _ owner: NameOwner, _ name: BusName, _ connection: Connection, _ logger: Logger
  ) async {
    logger.notice("asking \(owner) to write its wallets and quit, as --replace says")
    let path = KWallet.services.first { $0.name == name }?.path ?? "/modules/kwalletd5"
    try? await connection.call(
      name, path, KWallet.Methods.closeAllWallets, timeout: .seconds(5))
    if let pid = owner.pid { kill(pid_t(pid), SIGTERM) }
  }

  /// Whether `name` becomes keychaind's within 5 s.
  private static func wait(for name: BusName, _ connection: Connection) async -> Bool {
    for _ in 0..<50 {
      if let owner = try? await connection.nameOwner(name), owner == connection.uniqueName {
        return true
      }
      try? await Task.sleep(for: .milliseconds(100))
    }
    return false
  }
}
