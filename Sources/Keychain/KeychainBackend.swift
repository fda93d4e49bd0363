// SPDX-License-Identifier: MIT
//
// Where the SecItem functions keep items: a Secret Service provider on the bus (keychaind,
// gnome-keyring, KWallet), or an encrypted store file of the program's own. Chosen once per
// process: by `Keychain.use(_:)`, else by the environment, else the bus when a provider is
// reachable and the embedded store when not.

import Foundation
import KeychainCore
import KeychainStore
import Synchronization

/// The place the keychain functions store items.
public enum KeychainBackend: Sendable, Hashable {
  /// The provider of `org.freedesktop.secrets` on the session bus, or on the bus at `address`.
  case secretService(address: String? = nil)
  /// An encrypted store in `directory` (created 0700 if missing), its items sealed under a key
  /// that `password` unlocks. The same format and encryption as keychaind's store.
  case embedded(directory: String, password: String)
  /// The bus when a provider owns or can start `org.freedesktop.secrets`, else the embedded
  /// store in its default directory. The default.
  case automatic

  /// Makes `backend` the one the keychain functions use from now on in this process (the
  /// next call opens it). Without this call the environment decides; see `fromEnvironment`.
  public static func use(_ backend: KeychainBackend) {
    BackendRegistry.use(backend)
  }

  /// The backend the environment asks for: `KEYCHAIN_BACKEND` = `secret-service`, `embedded`
  /// or `automatic`; the embedded store lives in `KEYCHAIN_EMBEDDED_DIRECTORY` (default
  /// `$XDG_DATA_HOME/keychain-embedded`) with the password in the file named by
  /// `KEYCHAIN_EMBEDDED_PASSWORD_FILE` (default: an empty password, so that the store is only as
  /// private as its files).
  public static func fromEnvironment(_ environment: [String: String]) throws(KeychainStatus)
    -> KeychainBackend
  {
    switch environment["KEYCHAIN_BACKEND"] ?? "automatic" {
    case "secret-service": return .secretService(address: nil)
    case "embedded": return try embeddedDefault(environment)
    case "automatic", "": return .automatic
    case let other:
      throw .param("KEYCHAIN_BACKEND is '\(other)'; use secret-service, embedded or automatic")
    }
  }

  static func embeddedDefault(_ environment: [String: String]) throws(KeychainStatus)
    -> KeychainBackend
  {
    let data =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    let directory = environment["KEYCHAIN_EMBEDDED_DIRECTORY"] ?? data + "/keychain-embedded"
    var password = ""
    if let file = environment["KEYCHAIN_EMBEDDED_PASSWORD_FILE"] {
      guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
        throw KeychainStatus(
          KeychainStatus.notAvailable.code, detail: "cannot read KEYCHAIN_EMBEDDED_PASSWORD_FILE")
      }
      password = String(text.trimmingSuffix(while: \.isNewline))
    }
    return .embedded(directory: directory, password: password)
  }
}

extension StringProtocol {
  fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> SubSequence {
    var end = endIndex
    while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
    return self[startIndex..<end]
  }
}

/// The keychain functions' operations, whatever holds the items.
protocol ItemBackend: Sendable {
  func add(_ item: NewItem) throws(KeychainStatus) -> FoundItem
  func copyMatching(_ query: ItemQuery) throws(KeychainStatus) -> [FoundItem]
  func update(_ query: ItemQuery, _ changes: ItemChanges) throws(KeychainStatus)
  func delete(_ query: ItemQuery) throws(KeychainStatus)
}

/// The process's choice of backend, and the backend once opened.
enum BackendRegistry {
  private static let state = Mutex<(choice: KeychainBackend?, opened: (any ItemBackend)?)>(
    (nil, nil))

  static func use(_ backend: KeychainBackend) {
    state.withLock { $0 = (backend, nil) }
  }

  /// The open backend, opening the chosen one on first use.
  static func current() throws(KeychainStatus) -> any ItemBackend {
    let result: Result<any ItemBackend, KeychainStatus> = state.withLock { state in
      if let opened = state.opened { return .success(opened) }
      do throws(KeychainStatus) {
        var choice = state.choice
        if choice == nil {
          choice = try KeychainBackend.fromEnvironment(ProcessInfo.processInfo.environment)
        }
        let opened = try open(choice!)
        state.opened = opened
        return .success(opened)
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  private static func open(_ choice: KeychainBackend) throws(KeychainStatus) -> any ItemBackend {
    switch choice {
    case .secretService(let address):
      return SourceBackend(source: try BusItems.connect(address: address), status: BusItems.status)
    case .embedded(let directory, let password):
      return SourceBackend(
        source: try embeddedStore(directory: directory, password: password),
        status: KeychainStore.status(for:))
    case .automatic:
      if let bus = BusItems.ifReachable() {
        return SourceBackend(source: bus, status: BusItems.status)
      }
      return try open(KeychainBackend.embeddedDefault(ProcessInfo.processInfo.environment))
    }
  }
}

/// The operations over an `ItemSource`, each failure reported as a Keychain status by
/// `status` (the store's and the bus's errors map differently).
struct SourceBackend<Source: ItemSource & Sendable>: ItemBackend {
  let source: Source
  let status: @Sendable (any Error) -> KeychainStatus

  func add(_ item: NewItem) throws(KeychainStatus) -> FoundItem {
    try mapped { try source.add(item) }
  }

  func copyMatching(_ query: ItemQuery) throws(KeychainStatus) -> [FoundItem] {
    try mapped { try source.copyMatching(query) }
  }

  func update(_ query: ItemQuery, _ changes: ItemChanges) throws(KeychainStatus) {
    try mapped { try source.update(query, changes) }
  }

  func delete(_ query: ItemQuery) throws(KeychainStatus) {
    try mapped { try source.delete(query) }
  }

  private func mapped<T>(_ body: () throws -> T) throws(KeychainStatus) -> T {
    do { return try body() } catch { throw status(error) }
  }
}
