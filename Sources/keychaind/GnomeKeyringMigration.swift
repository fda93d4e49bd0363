// SPDX-License-Identifier: MIT
//
// Coming over from gnome-keyring, oo7 or KWallet: whenever a password opens or makes a
// collection (`--unlock`, a prompt, PAM, the master-password calls), gnome-keyring's keyrings
// that this password (or one gnome-keyring kept in its login keyring) opens, oo7's v1 keyrings
// and KDE's wallets it opens are merged into keychaind's store, and what could not be imported
// yet is logged with its reason. Their files are only read.

import Foundation
import KWalletProtocol
import KeychainCrypto
import KeychainDaemonCore
import KeychainImport
import KeychainStore
import Logging
import ManagementServer

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
    // oo7's keyrings: its login keyring is normally keyed by the login password, and keyrings
    // it migrated from gnome-keyring keep their own, which login may keep.
    let oo7 = ImportReport.log(
      OO7Importer(store: store, directory: .standard(environment)).run(passwords: [password]),
      logger)
    effects.createdCollections += oo7.createdCollections
    effects.changedCollections += oo7.changedCollections
    for name in OO7Importer.unlockImported(in: store, password: password) {
      effects.unlockedCollections.append(name)
      logger.info("unlocked collection \(name), which oo7 kept under the same password")
    }
    if !oo7.changedCollections.isEmpty {
      // A keyring oo7 migrated may hold gnome-keyring's "unlock automatically" passwords.
      for name in ChainedKeyrings.unlock(in: store)
      where !effects.unlockedCollections.contains(name) {
        effects.unlockedCollections.append(name)
        logger.info(
          "unlocked collection \(name) with the password the login collection keeps for it")
      }
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
