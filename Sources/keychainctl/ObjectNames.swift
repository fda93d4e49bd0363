// SPDX-License-Identifier: MIT
//
// Object paths as a person knows them, for listings: an item by its label and its keyring's
// (“Mail password” in Login), a keyring by its label. The audit log and the grants name items
// by path only (they never hold a label); the names come from keychaind while a listing is
// made, and a path stays a path when keychaind cannot say (no daemon, a keyring locked since
// keychaind started, an item gone).

import KeychainDBus
import SecretServiceClient
import SecretServiceProtocol

/// Names for object paths, looked up once each.
final class ObjectNames {
  private let client: SecretServiceClient?
  /// Whether to print paths as they are (`--paths`).
  private let asPaths: Bool
  private var collections: [String: String] = [:]
  private var items: [String: String] = [:]

  /// Names from the running keychaind; with `asPaths`, or with no keychaind, paths.
  init(asPaths: Bool) async {
    self.asPaths = asPaths
    client = asPaths ? nil : try? await connectedClient()
    for collection in (try? await client?.collections()) ?? [] where !collection.label.isEmpty {
      collections[collection.path.rawValue] = collection.label
    }
  }

  /// A collection's label, by its path or its name (`login`), or what was given.
  func collection(_ pathOrName: String) -> String {
    let path =
      pathOrName.hasPrefix("/")
      ? pathOrName : SecretPath.base.rawValue + "/collection/" + pathOrName
    return collections[path].map { "“\($0)”" } ?? pathOrName
  }

  /// An item as “Label” in Keyring, or a collection's label, or `path` itself.
  func name(of path: String) async -> String {
    if asPaths { return path }
    if let known = items[path] ?? collections[path].map({ "“\($0)”" }) { return known }
    guard let client, let objectPath = ObjectPath(validating: path),
      let item = try? await client.item(objectPath)
    else { return path }
    let keyring = path.split(separator: "/").dropLast().joined(separator: "/")
    let named = "“\(item.label)” in " + collection("/" + keyring)
    items[path] = named
    return named
  }
}
