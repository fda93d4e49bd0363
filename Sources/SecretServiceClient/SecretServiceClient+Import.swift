// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Import`: gnome-keyring's keyrings imported on request, the
// passwords sent through the session like the master-password calls'. Other providers do not
// have it (the call then fails with UnknownMethod).

import KeychainCrypto
import KeychainDBus
import SecretServiceProtocol

extension SecretServiceClient {
  /// Asks keychaind to import gnome-keyring's keyrings from `directory` (empty: its standard
  /// one) with these passwords besides those it knows; with `dryRun`, to read them only.
  public func importGnomeKeyring(directory: String, passwords: [SecureBytes], dryRun: Bool)
    async throws -> [ImportFileReport]
  {
    let secrets = try passwords.map { try secretValue($0, contentType: "text/plain") }
    return try await call(
      Self.service, SecretService.ImportMethods.importGnomeKeyring, directory, secrets, dryRun
    )
  }

  /// Asks keychaind to import oo7's v1 keyrings from `directory` (empty: oo7's own), trying
  /// `passwords` besides those it knows; one outcome per keyring file.
  public func importOO7(directory: String, passwords: [SecureBytes], dryRun: Bool)
    async throws -> [ImportFileReport]
  {
    let secrets = try passwords.map { try secretValue($0, contentType: "text/plain") }
    return try await call(
      Self.service, SecretService.ImportMethods.importOO7, directory, secrets, dryRun)
  }

  /// Asks keychaind to import KDE's wallets from `directory` (empty: KWallet's own), trying
  /// `passwords` besides those it knows; one outcome per wallet file.
  public func importKWallet(directory: String, passwords: [SecureBytes], dryRun: Bool)
    async throws -> [ImportFileReport]
  {
    let secrets = try passwords.map { try secretValue($0, contentType: "text/plain") }
    return try await call(
      Self.service, SecretService.ImportMethods.importKWallet, directory, secrets, dryRun)
  }

  /// Asks keychaind to restore the backup at `file` (an absolute path) made by
  /// `keychainctl export`; one outcome per collection.
  public func importBackup(file: String, passphrase: SecureBytes, dryRun: Bool) async throws
    -> [ImportFileReport]
  {
    return try await call(
      Self.service, SecretService.ImportMethods.importBackup, file,
      try secretValue(passphrase, contentType: "text/plain"), dryRun
    )
  }
}
