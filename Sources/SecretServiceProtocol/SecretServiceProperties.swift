// SPDX-License-Identifier: MIT
//
// The Secret Service's properties, declared once with their Swift types (see `Property`), in
// the order introspection lists them.

import KeychainDBus

extension SecretService {
  /// `org.freedesktop.Secret.Service`'s property.
  public enum ServiceProperty {
    public static let collections = Property<[ObjectPath]>(serviceInterface, "Collections")
  }

  /// `org.freedesktop.Secret.Collection`'s properties.
  public enum CollectionProperty {
    public static let items = Property<[ObjectPath]>(collectionInterface, "Items")
    public static let label = Property<String>(collectionInterface, "Label", .readwrite)
    public static let locked = Property<Bool>(collectionInterface, "Locked")
    public static let created = Property<UInt64>(collectionInterface, "Created")
    public static let modified = Property<UInt64>(collectionInterface, "Modified")
    /// All of them, in introspection's order.
    public static let all = [
      items.description, label.description, locked.description, created.description,
      modified.description,
    ]
  }

  /// `org.freedesktop.Secret.Item`'s properties.
  public enum ItemProperty {
    public static let locked = Property<Bool>(itemInterface, "Locked")
    public static let attributes = Property<[String: String]>(
      itemInterface, "Attributes", .readwrite)
    public static let label = Property<String>(itemInterface, "Label", .readwrite)
    /// gnome-keyring's: the schema name (`xdg:schema`).
    public static let type = Property<String>(itemInterface, "Type", .readwrite)
    public static let created = Property<UInt64>(itemInterface, "Created")
    public static let modified = Property<UInt64>(itemInterface, "Modified")
    /// All of them, in introspection's order.
    public static let all = [
      locked.description, attributes.description, label.description, type.description,
      created.description, modified.description,
    ]
  }
}
