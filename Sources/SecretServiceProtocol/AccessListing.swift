// SPDX-License-Identifier: MIT
//
// What `org.keychain_linux.Access.List` answers, as JSON: the mode, every grant, and who owns
// how many items, for the collections that are unlocked (owners and grants are sealed with
// their collection's key, so a locked collection's are not known).

/// The access rules as they stand.
public struct AccessListing: Codable, Sendable, Equatable {
  /// A remembered "Always allow".
  public struct Grant: Codable, Sendable, Equatable {
    public var id: Int64
    /// The identity key it was given to.
    public var app: String
    /// The content it was given for (`sha256:…`), if the application is identified by content.
    public var pin: String?
    public var collection: String
    /// The item's object path; nil for the whole collection or a group.
    public var item: String?
    /// The named group (`group:NAME`) the application is a member of in the collection.
    public var group: String?
    /// Unix time.
    public var created: Int64
    /// `dialog`, `cli` or `learn`.
    public var source: String

    public init(
      id: Int64, app: String, pin: String?, collection: String, item: String?,
      group: String? = nil, created: Int64, source: String
    ) {
      (self.id, self.app, self.pin, self.collection) = (id, app, pin, collection)
      (self.item, self.group, self.created, self.source) = (item, group, created, source)
    }
  }

  /// How many items of a collection an application owns.
  public struct Owner: Codable, Sendable, Equatable {
    public var app: String
    public var collection: String
    public var items: Int

    public init(app: String, collection: String, items: Int) {
      (self.app, self.collection, self.items) = (app, collection, items)
    }
  }

  /// `off`, `audit` or `protect`.
  public var mode: String
  public var grants: [Grant]
  public var owners: [Owner]
  /// Items with no owner (stored before access control, or imported), by collection.
  public var unowned: [String: Int]
  /// Collections left out because they are locked.
  public var locked: [String]

  public init(
    mode: String, grants: [Grant], owners: [Owner], unowned: [String: Int], locked: [String]
  ) {
    (self.mode, self.grants, self.owners, self.unowned, self.locked) =
      (mode, grants, owners, unowned, locked)
  }
}
