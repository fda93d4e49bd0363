// SPDX-License-Identifier: MIT

import KeychainCrypto
import KeychainDBus
import KeychainStore
import SecretServiceProtocol

/// gnome-keyring's `org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface` on the service
/// object: collections created, unlocked and re-keyed with a password the caller sends through
/// its session instead of a prompt (headless scripts, kiosks), and Seahorse's "change password"
/// (`ChangeWithPrompt`).
struct GnomeKeyringInterface: DBusInterface {
  let state: ServiceState
  var store: KeychainStore { state.store }

  static let description = InterfaceDescription(
    SecretService.gnomeInternalInterface,
    methods: [
      MethodDescription(
        "ChangeWithMasterPassword",
        inputs: [
          .init("collection", .objectPath), .init("original", Secret.dbusType),
          .init("master", Secret.dbusType),
        ]),
      MethodDescription(
        "ChangeWithPrompt", inputs: [.init("collection", .objectPath)],
        outputs: [.init("prompt", .objectPath)]),
      MethodDescription(
        "CreateWithMasterPassword",
        inputs: [
          .init("attributes", .dictionary(key: .string, value: .variant)),
          .init("password", Secret.dbusType),
        ],
        outputs: [.init("collection", .objectPath)]),
      MethodDescription(
        "UnlockWithMasterPassword",
        inputs: [.init("collection", .objectPath), .init("master", Secret.dbusType)]),
    ])
  var interfaceDescription: InterfaceDescription { Self.description }

  func call(_ request: MethodRequest) async throws -> [DBusValue] {
    let signals = ChangeSignals(request, state: state)
    switch request.member.rawValue {
    case "CreateWithMasterPassword":
      let properties: [String: DBusValue] = try request.argument(0)
      guard properties.keys.allSatisfy({ $0 == CollectionProperties.label }),
        properties[CollectionProperties.label].map({ $0.type == .string }) ?? true
      else { throw SecretServiceError.invalidPropertiesArgument }
      let password = try await secret(request, 1)
      let label = properties[CollectionProperties.label]?.string ?? ""
      let store = store
      let hook = state.passwordHook
      let (name, hooked) = try await Blocking.run {
        let name = try Collections.create(label: label, alias: "", password: password, in: store)
        return (name, hook?(password) ?? PasswordHookEffects())
      }
      await signals.collectionCreated(name)
      await signals.announce(hooked)
      return [.objectPath(Resolver.path(ofCollection: name))]
    case "UnlockWithMasterPassword":
      let collection = try collection(request, 0)
      let password = try await secret(request, 1)
      let store = store
      // gnome-keyring takes any password for a collection that is already unlocked.
      let wasLocked = store.isLocked(collection)
      var hooked = PasswordHookEffects()
      if wasLocked {
        let hook = state.passwordHook
        hooked = try await Blocking.run {
          try store.unlock(collection, password: password)
          if collection == KeychainStore.loginCollection {
            // Only for `keychainctl doctor`: failing to note it fails nothing.
            try? store.recordLoginUnlock(route: "UnlockWithMasterPassword")
          }
          return hook?(password) ?? PasswordHookEffects()
        }
      }
      await signals.lockChanged(
        [collection], changed: wasLocked ? [collection] : [], locked: false)
      await signals.announce(hooked)
      state.unlocked([collection])
      return []
    case "ChangeWithMasterPassword":
      let collection = try collection(request, 0)
      let original = try await secret(request, 1)
      let new = try await secret(request, 2)
      let store = store
      try await Blocking.run {
        try store.changePassword(collection, from: original, to: new)
      }
      await signals.collectionChanged(collection)
      return []
    default:  // ChangeWithPrompt
      let collection = try collection(request, 0)
      guard collection != KeychainStore.sessionCollection else {
        throw DBusError(.notSupported, "the session collection has no password")
      }
      let prompt = try await state.makePrompt(
        owner: request.caller, action: .changePassword(collection: collection))
      return [.objectPath(prompt)]
    }
  }

  /// The store collection that argument `index` names (a collection, alias or item path).
  private func collection(_ request: MethodRequest, _ index: Int) throws -> String {
    try Resolver.namedCollection(try request.argument(index), in: store)
  }

  /// The password in secret argument `index`, decrypted with the caller's session.
  private func secret(_ request: MethodRequest, _ index: Int) async throws -> SecureBytes {
    try state.sessions.password(
      in: try request.argument(index, as: Secret.self), caller: request.caller)
  }
}
