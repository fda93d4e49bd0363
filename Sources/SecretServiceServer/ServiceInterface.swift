// SPDX-License-Identifier: MIT

import KeychainCrypto
import KeychainDBus
import KeychainStore
import SecretServiceProtocol

/// `org.freedesktop.Secret.Service` at `/org/freedesktop/secrets`.
struct ServiceInterface: DBusInterface {
  let state: ServiceState
  var store: KeychainStore { state.store }

  // Built once: the object server asks for it on every call.
  static let description = InterfaceDescription(
    SecretService.serviceInterface,
    methods: [
      MethodDescription(
        "OpenSession", inputs: [.init("algorithm", .string), .init("input", .variant)],
        outputs: [.init("output", .variant), .init("result", .objectPath)]),
      MethodDescription(
        "CreateCollection",
        inputs: [
          .init("properties", .dictionary(key: .string, value: .variant)), .init("alias", .string),
        ],
        outputs: [.init("collection", .objectPath), .init("prompt", .objectPath)]),
      MethodDescription(
        "SearchItems", inputs: [.init("attributes", .dictionary(key: .string, value: .string))],
        outputs: [.init("unlocked", .array(.objectPath)), .init("locked", .array(.objectPath))]),
      MethodDescription(
        "Unlock", inputs: [.init("objects", .array(.objectPath))],
        outputs: [.init("unlocked", .array(.objectPath)), .init("prompt", .objectPath)]),
      MethodDescription(
        "Lock", inputs: [.init("objects", .array(.objectPath))],
        outputs: [.init("locked", .array(.objectPath)), .init("Prompt", .objectPath)]),
      MethodDescription(
        "GetSecrets", inputs: [.init("items", .array(.objectPath)), .init("session", .objectPath)],
        outputs: [.init("secrets", .dictionary(key: .objectPath, value: Secret.dbusType))]),
      MethodDescription(
        "ReadAlias", inputs: [.init("name", .string)], outputs: [.init("collection", .objectPath)]),
      MethodDescription(
        "SetAlias", inputs: [.init("name", .string), .init("collection", .objectPath)]),
      // gnome-keyring's two extra methods: desktops' "lock keyring" buttons call LockService.
      MethodDescription("LockService"),
      MethodDescription(
        "ChangeLock", inputs: [.init("collection", .objectPath)],
        outputs: [.init("prompt", .objectPath)]),
    ],
    properties: [PropertyDescription("Collections", .array(.objectPath))],
    signals: [
      SignalDescription("CollectionCreated", [.init("collection", .objectPath)]),
      SignalDescription("CollectionDeleted", [.init("collection", .objectPath)]),
      SignalDescription("CollectionChanged", [.init("collection", .objectPath)]),
    ])
  var interfaceDescription: InterfaceDescription { Self.description }

  func call(_ request: MethodRequest) async throws -> [DBusValue] {
    switch request.member.rawValue {
    case "OpenSession":
      let algorithm: String = try request.argument(0)
      let input: DBusValue = try request.argument(1)
      let (output, cipher) = try SessionNegotiation.open(algorithm: algorithm, input: input)
      let path = try state.sessions.open(owner: request.caller, cipher: cipher)
      return [.variant(output), .objectPath(path)]
    case "CreateCollection":
      let properties: [String: DBusValue] = try request.argument(0)
      let alias: String = try request.argument(1)
      if !alias.isEmpty, let existing = try store.alias(alias) {
        return [.objectPath(Resolver.path(ofCollection: existing)), .objectPath(SecretPath.none)]
      }
      // gnome-keyring takes the label and nothing else (an item's label given here included).
      guard properties.keys.allSatisfy({ $0 == CollectionProperties.label }),
        properties[CollectionProperties.label].map({ $0.type == .string }) ?? true
      else { throw SecretServiceError.invalidProperties }
      let label = properties[CollectionProperties.label]?.string ?? ""
      // A new collection needs a password, which only a prompt can ask for.
      let prompt = try await state.makePrompt(
        owner: request.caller, action: .createCollection(label: label, alias: alias))
      return [.objectPath(SecretPath.none), .objectPath(prompt)]
    case "SearchItems":
      let attributes: [String: String] = try request.argument(0)
      let (unlocked, locked) = try store.searchItems(attributes)
      if unlocked.count + locked.count >= MemoryRelease.largeList {
        MemoryRelease.afterReply(to: request)
      }
      return [Resolver.paths(of: unlocked), Resolver.paths(of: locked)]
    case "Unlock":
      return try await unlock(try request.argument(0), request)
    case "LockService":
      // Every collection; gnome-keyring sends no signals here, which leaves its clients'
      // proxies showing unlocked collections: keychaind sends the usual ones.
      _ = try await ChangeSignals(request, state: state).lockEverything()
      return []
    case "ChangeLock":
      let collection = try Resolver.namedCollection(try request.argument(0), in: store)
      guard collection != KeychainStore.sessionCollection else {
        throw DBusError(.notSupported, "the session collection has no password")
      }
      let prompt = try await state.makePrompt(
        owner: request.caller, action: .changePassword(collection: collection))
      return [.objectPath(prompt)]
    case "Lock":
      let objects: [ObjectPath] = try request.argument(0)
      var locked: [ObjectPath] = []
      var collections: [String] = []
      var changed: Set<String> = []
      for object in objects {
        guard
          let collection = try Resolver.owningCollection(object, in: store)
        else { continue }
        if !store.isLocked(collection), collection != KeychainStore.sessionCollection {
          try store.lock(collection)
          changed.insert(collection)
        }
        if !collections.contains(collection) { collections.append(collection) }
        locked.append(object)
      }
      await ChangeSignals(request, state: state).lockChanged(
        collections, changed: changed, locked: true)
      return [locked.dbusValue, .objectPath(SecretPath.none)]
    case "GetSecrets":
      let items: [ObjectPath] = try request.argument(0)
      let cipher = try state.sessions.cipher(try request.argument(1), caller: request.caller)
      var secrets: [ObjectPath: Secret] = [:]
      var bytes = 0
      var used = Set<String>()
      defer {
        state.noteUse(used)
        if bytes >= MemoryRelease.largeSecret { MemoryRelease.afterReply(to: request) }
      }
      for path in items {
        // Locked and missing items are skipped, as gnome-keyring does and libsecret expects.
        guard let parsed = SecretPath(path), let item = try? Resolver.item(parsed, in: store),
          let (secret, contentType) = try? store.secret(of: item)
        else { continue }
        used.insert(item.collection)
        let (parameters, value) = try cipher.encrypt(secret)
        bytes += value.count
        secrets[path] = Secret(
          session: try request.argument(1), parameters: parameters, value: value,
          contentType: contentType)
      }
      return [secrets.dbusValue]
    case "ReadAlias":
      let name: String = try request.argument(0)
      let collection = try store.alias(name)
      return [.objectPath(collection.map(Resolver.path(ofCollection:)) ?? SecretPath.none)]
    default:  // SetAlias
      let name: String = try request.argument(0)
      let target: ObjectPath = try request.argument(1)
      let collection =
        target == SecretPath.none ? nil : try Resolver.namedCollection(target, in: store)
      try await Blocking.run { [store, collection] in
        try store.setAlias(name, to: collection)
      }
      return []
    }
  }

  /// Unlocked objects are echoed exactly as given (alias paths included: go-keyring compares
  /// them); locked ones wait for a prompt.
  private func unlock(_ objects: [ObjectPath], _ request: MethodRequest) async throws -> [DBusValue]
  {
    var unlocked: [ObjectPath] = []
    var pending: [ObjectPath] = []
    var collections: [String] = []
    for object in objects {
      guard
        let collection = try Resolver.owningCollection(object, in: store)
      else {
        continue
      }
      if store.isLocked(collection) {
        pending.append(object)
        if !collections.contains(collection) { collections.append(collection) }
      } else {
        unlocked.append(object)
      }
    }
    guard !pending.isEmpty else { return [unlocked.dbusValue, .objectPath(SecretPath.none)] }
    let prompt = try await state.makePrompt(
      owner: request.caller, action: .unlock(collections: collections, objects: pending))
    return [unlocked.dbusValue, .objectPath(prompt)]
  }

  func getProperty(_ name: String, _ request: MethodRequest) async throws -> DBusValue {
    let names = try store.collections().map(\.name)
    return names.map(Resolver.path(ofCollection:)).dbusValue
  }
}
