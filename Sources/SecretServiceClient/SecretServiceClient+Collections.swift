// SPDX-License-Identifier: MIT
//
// Collections as keychainctl shows them: label, lock state, item count, the default alias.

import KeychainDBus
import SecretServiceProtocol

/// A collection as the provider describes it.
public struct RemoteCollection: Sendable, Hashable {
  public var path: ObjectPath
  public var label: String
  public var isLocked: Bool
  public var itemCount: Int
}

extension SecretServiceClient {
  /// Every collection of the provider, in its order.
  public func collections() async throws -> [RemoteCollection] {
    let reply = try await call(
      Self.service, .properties, "Get",
      [.string(SecretService.serviceInterface.rawValue), .string("Collections")])
    guard case .variant(let list)? = reply.first else {
      throw DBusError(.failed, "Collections is not a list")
    }
    var collections: [RemoteCollection] = []
    for path in try [ObjectPath](dbusValue: list) {
      let all = try await call(
        path, .properties, "GetAll", [.string(SecretService.collectionInterface.rawValue)])
      let properties = try [String: DBusValue](dbusValue: all.first ?? .array(.string, []))
      func value(_ name: String) -> DBusValue? {
        if case .variant(let inner)? = properties[name] { inner } else { properties[name] }
      }
      let items = try value("Items").map { try [ObjectPath](dbusValue: $0) } ?? []
      guard case .boolean(let locked)? = value("Locked") else {
        throw DBusError(.failed, "\(path) has no Locked property")
      }
      collections.append(
        RemoteCollection(
          path: path, label: value("Label")?.string ?? "", isLocked: locked,
          itemCount: items.count))
    }
    return collections
  }

  /// The collection an alias (`default`) names, or nil.
  public func readAlias(_ name: String) async throws -> ObjectPath? {
    let reply = try await call(
      Self.service, SecretService.serviceInterface, "ReadAlias", [.string(name)])
    guard let path = reply.first?.objectPath, path.rawValue != "/" else { return nil }
    return path
  }

  /// The unique name and process id of the provider.
  public func provider() async throws -> (name: BusName?, pid: UInt32?) {
    let owner = try await connection.nameOwner(SecretService.busName)
    let pid = try? await connection.credentials(of: SecretService.busName).pid
    return (owner, pid)
  }
}
