// SPDX-License-Identifier: MIT
//
// Coming over from gnome-keyring or KWallet: whenever a password opens or makes a collection
// (`--unlock`, a prompt, the master-password calls), gnome-keyring's keyrings that this password
// (or one gnome-keyring kept in its login keyring) opens, and KDE's wallets it opens, are merged
// into keychaind's store, and what could not be imported yet is logged with its reason. Their
// files are only read.

import Foundation
import KWalletProtocol
import KeychainCrypto
import KeychainImport
import KeychainStore
import Logging
import SecretServiceServer

enum GnomeKeyringMigration {
  /// The hook the daemon runs with each accepted password.
  static func hook(store: KeychainStore, environment: [String: String], logger: Logger)
    -> PasswordHook
  {
    { password in run(store: store, password: password, environment: environment, logger: logger) }
  }

  /// Imports what `password` opens, if gnome-keyring's directory holds anything new; then,
  /// with login open, opens the keyrings whose passwords login keeps, as gnome-keyring does.
  @discardableResult
  static func run(
    store: KeychainStore, password: SecureBytes, environment: [String: String], logger: Logger
  ) -> PasswordHookEffects {
    // An unchanged file is recognised by its identity and hash and skipped: each file is
    // read once per accepted password, and one that has not changed is not decrypted.
    let importer = GnomeKeyringImporter(store: store, directory: .standard(environment))
    var effects = ImportReport.log(importer.run(passwords: [password]), logger)
    effects.unlockedCollections = ChainedKeyrings.unlock(in: store)
    for name in effects.unlockedCollections {
      logger.info("unlocked collection \(name) with the password the login collection keeps for it")
    }
    // KDE's wallets too: with kwallet-pam, the default wallet's password is the login's.
    let kwallet = ImportReport.log(
      KWalletMigration.importer(store, environment).run(passwords: [password]), logger)
    effects.createdCollections += kwallet.createdCollections
    effects.changedCollections += kwallet.changedCollections
    return effects
  }
}

enum KWalletMigration {
  /// The importer of the user's KDE wallets, with kwalletrc's default wallet name.
  static func importer(_ store: KeychainStore, _ environment: [String: String]) -> KWalletImporter {
    KWalletImporter(
      store: store, directory: .standard(environment),
      settings: KWalletSettings(environment: environment))
  }
}
