// SPDX-License-Identifier: MIT
//
// The `a{sv}` that CreateItem, CreateCollection and CreateWithMasterPassword take, as typed
// values: read as gnome-keyring reads them (the same error for the same mistake), and written as
// clients send them. The keys are spelled only in `ItemProperties` and `CollectionProperties`.

import KeychainDBus

/// CreateItem's properties.
public struct NewItemProperties: Sendable, Equatable {
  public var label: String
  public var attributes: [String: String]
  /// gnome-keyring's `Type`, the schema's name; libsecret sends it beside `xdg:schema`.
  public var type: String?

  public init(label: String, attributes: [String: String], type: String? = nil) {
    self.label = label
    self.attributes = attributes
    self.type = type
  }

  /// Reads CreateItem's properties. gnome-keyring refuses a property it does not know, or one
  /// of the wrong type, with InvalidArgs, and one no client sets (Locked, Created, Modified)
  /// with Failed; so does this. A missing label is empty, missing attributes are none.
  public init(_ properties: [String: DBusValue]) throws(DBusError) {
    self.init(label: "", attributes: [:])
    for (key, value) in properties {
      switch key {
      case ItemProperties.label:
        guard let text = value.string else { throw SecretServiceError.invalidPropertiesArgument }
        label = text
      case ItemProperties.attributes:
        guard let pairs = try? [String: String](dbusValue: value) else {
          throw SecretServiceError.invalidPropertiesArgument
        }
        attributes = pairs
      case ItemProperties.type:
        guard let text = value.string else { throw SecretServiceError.invalidPropertiesArgument }
        type = text
      case _ where ItemProperties.readOnly.contains(key):
        throw SecretServiceError.readOnlyField
      default:
        throw SecretServiceError.invalidPropertiesArgument
      }
    }
  }

  /// The attributes to store: with `type` as `xdg:schema` when the client gave a type and no
  /// schema, so that a search by schema finds the item, as with gnome-keyring.
  public var storedAttributes: [String: String] {
    var stored = attributes
    if let type, !type.isEmpty, stored["xdg:schema"] == nil { stored["xdg:schema"] = type }
    return stored
  }

  /// The properties as a client sends them.
  public var dbusProperties: [String: DBusValue] {
    var properties: [String: DBusValue] = [
      ItemProperties.label: .string(label), ItemProperties.attributes: attributes.dbusValue,
    ]
    if let type { properties[ItemProperties.type] = .string(type) }
    return properties
  }
}

/// CreateCollection's and CreateWithMasterPassword's properties: gnome-keyring takes the label
/// and nothing else (an item's label given here included).
public struct NewCollectionProperties: Sendable, Equatable {
  public var label: String

  public init(label: String) { self.label = label }

  /// Reads them. Anything but at most a string label is `invalid`, the error the method answers
  /// with (gnome-keyring words CreateCollection's and CreateWithMasterPassword's differently).
  public init(_ properties: [String: DBusValue], invalid: DBusError) throws(DBusError) {
    guard properties.keys.allSatisfy({ $0 == CollectionProperties.label }),
      properties[CollectionProperties.label].map({ $0.type == .string }) ?? true
    else { throw invalid }
    self.init(label: properties[CollectionProperties.label]?.string ?? "")
  }

  /// The properties as a client sends them.
  public var dbusProperties: [String: DBusValue] { [CollectionProperties.label: .string(label)] }
}
