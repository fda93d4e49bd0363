// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Shares`, on the service object: scoped shares
// (`keychainctl share`). A share is a private bus of its own on which keychaind serves
// org.freedesktop.secrets showing only the items it was made with, for a sandbox, a container
// or an agent that is given that bus instead of the session bus.

import KeychainDBus

extension SecretService {
  /// keychaind's `org.keychain_linux.Shares`.
  public enum ShareMethods {
    /// Makes a share of `items`, which the caller must be able to read now (Unlock them
    /// first: that asks, as a read would). `ttl_seconds` 0 lasts until revoked or keychaind
    /// stops; with `read_only` false its clients may also change and delete the shared items
    /// and store new ones, which join it. Returns its id and its bus address.
    public static let create = Takes<[ObjectPath], UInt64, Bool, String>.Returns<String, String>(
      sharesInterface, "Create", ["items", "ttl_seconds", "read_only", "label"],
      ["id", "address"],
      errors: [.invalidArgs, .noSuchObject, .isLocked, .failed, .limitsExceeded])
    /// The live shares as JSON (`[ShareListing]`), oldest first.
    public static let list = NoArguments.Returns<String>(
      sharesInterface, "List", [], ["json"], errors: [])
    /// Ends a share: its bus stops, which closes its clients' connections, and its socket goes.
    public static let revoke = Takes<String>.ReturnsNothing(
      sharesInterface, "Revoke", ["id"], errors: [.noSuchObject])
  }
}

/// One share as `org.keychain_linux.Shares.List` answers it.
public struct ShareListing: Codable, Sendable, Equatable {
  public var id: String
  public var label: String
  /// The bus its clients connect to (`unix:path=…`).
  public var address: String
  public var readOnly: Bool
  /// Unix time.
  public var created: Int64
  /// Unix time it ends at; nil when it lasts until revoked.
  public var expires: Int64?
  /// The shared items' object paths.
  public var items: [String]

  public init(
    id: String, label: String, address: String, readOnly: Bool, created: Int64, expires: Int64?,
    items: [String]
  ) {
    (self.id, self.label, self.address, self.readOnly) = (id, label, address, readOnly)
    (self.created, self.expires, self.items) = (created, expires, items)
  }
}
