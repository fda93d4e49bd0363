// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Shares`, for `keychainctl share`.

import Foundation
import KeychainDBus
import SecretServiceProtocol

extension SecretServiceClient {
  /// Shares `items` (which must be unlocked for this client) on a private bus of their own;
  /// returns the share's id and the bus's address. `lifetime` nil: until revoked.
  public func createShare(
    of items: [ObjectPath], lifetime: UInt64?, readOnly: Bool, label: String
  ) async throws -> (id: String, address: String) {
    try await call(
      Self.service, SecretService.ShareMethods.create, items, lifetime ?? 0, readOnly, label)
  }

  /// The live shares, oldest first.
  public func shares() async throws -> [ShareListing] {
    let json: String = try await call(Self.service, SecretService.ShareMethods.list)
    return try JSONDecoder().decode([ShareListing].self, from: Data(json.utf8))
  }

  /// Ends share `id`: its clients are cut off and its socket removed.
  public func revokeShare(_ id: String) async throws {
    try await call(Self.service, SecretService.ShareMethods.revoke, id)
  }
}
