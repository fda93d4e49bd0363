// SPDX-License-Identifier: MIT

import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

/// gnome-keyring's `org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface` on the service
/// object: collections created, unlocked and re-keyed with a password the caller sends through
/// its session instead of a prompt (headless scripts, kiosks), and Seahorse's "change password"
/// (`ChangeWithPrompt`).
struct GnomeKeyringInterface: DBusInterface {
  let core: DaemonCore

  typealias Methods = SecretService.GnomeKeyringMethods

  /// Each method's handler, from the declarations in SecretServiceProtocol.
  static let table = InterfaceTable<GnomeKeyringInterface>(SecretService.Interfaces.gnomeKeyring) {
    table in
    table.on(Methods.changeWithMasterPassword, changeWithMasterPassword)
    table.on(Methods.changeWithPrompt, changeWithPrompt)
    table.on(Methods.createWithMasterPassword, createWithMasterPassword)
    table.on(Methods.unlockWithMasterPassword, unlockWithMasterPassword)
  }

  func createWithMasterPassword(
    _ request: MethodRequest, attributes properties: [String: DBusValue], password: Secret
  ) async throws -> ObjectPath {
    let label = try NewCollectionProperties(
      properties, invalid: SecretServiceError.invalidPropertiesArgument
    ).label
    let password = try self.password(password, request)
    let unlocker = core.unlocker
    let view = StoreView(request, core: core)
    if let question = try view.changeQuestion(
      "create a keyring “\(label.isEmpty ? "Unnamed" : label)” with a password it chose",
      "It can open that keyring without you.")
    {
      try await view.confirm(question, .create, SecretPath.base)
    }
    let (name, outcome) = try await view.write { _ in
      try unlocker.create(label: label, alias: "", password: password)
    }
    view.record(contentsOf: outcome.events(of: name))
    return Resolver.path(ofCollection: name)
  }

  func unlockWithMasterPassword(
    _ request: MethodRequest, collection path: ObjectPath, master: Secret
  ) async throws {
    let view = StoreView(request, core: core)
    let collection = try view.namedCollection(path)
    let password = try self.password(master, request)
    // gnome-keyring takes any password for a collection that is already unlocked.
    let wasLocked = view.isLocked(collection)
    var outcome = Unlocker.Outcome(wasLocked: false)
    if wasLocked {
      let unlocker = core.unlocker
      outcome = try await view.write { _ in
        try unlocker.unlock(collection, with: password, route: UnlockRecord.Route.masterPassword)
      }
    }
    view.record(contentsOf: outcome.events(of: collection))
  }

  func changeWithMasterPassword(
    _ request: MethodRequest, collection path: ObjectPath, original: Secret, master: Secret
  ) async throws {
    let view = StoreView(request, core: core)
    let collection = try view.namedCollection(path)
    let (original, new) = (try password(original, request), try password(master, request))
    try await view.write { try $0.changePassword(collection, from: original, to: new) }
    view.record(.collectionChanged(collection))
  }

  func changeWithPrompt(_ request: MethodRequest, collection path: ObjectPath) async throws
    -> ObjectPath
  {
    try await core.prompts.passwordChange(
      for: try StoreView(request, core: core).namedCollection(path), caller: request.caller)
  }

  /// The password in `secret`, decrypted with the caller's session.
  private func password(_ secret: Secret, _ request: MethodRequest) throws -> SecureBytes {
    try core.sessions.password(in: secret, caller: request.caller)
  }
}
