// SPDX-License-Identifier: MIT
//
// The Secret Service's properties, declared once with their Swift types (see `Property`).

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
  }
}

extension SecretService.PortalMethods {
  /// The portal backend's version.
  public static let version = Property<UInt32>(interface, "version")
}
