// SPDX-License-Identifier: MIT
//
// What a gnome-keyring file holds once read, in the form keychaind stores: attributes as
// strings (gnome-keyring's uint32 attributes as decimal), its compatibility markers dropped,
// the schema filled in from the item type where the item names none.

import Foundation
import KeychainCrypto

/// One item of a gnome-keyring keyring.
public struct KeyringItem: Sendable {
  /// The item's number in its keyring: the last element of its D-Bus path.
  public var id: UInt32
  public var label: String
  public var secret: SecureBytes
  public var attributes: [String: String]
  public var created: Date
  public var modified: Date
  /// libgnome-keyring access-control entries, which are dropped (counted for the report).
  public var accessEntries: Int
  /// A textual keyring's secret that gnome-keyring wrote over several lines and could no
  /// longer read itself, put back together.
  public var recovered: Bool
}

/// A whole keyring file, read.
public struct KeyringContents: Sendable {
  public var label: String
  public var created: Date?
  public var modified: Date?
  public var items: [KeyringItem]
  /// Whether a password protected it (the binary format) or not (the textual one).
  public var encrypted: Bool
}

/// A raw attribute as gnome-keyring keeps it.
struct RawAttribute {
  var name: String
  var value: String
}

enum AttributeConversion {
  /// gnome-keyring's item types, for items that carry no `xdg:schema` of their own.
  static let schemas: [UInt32: String] = [
    0: "org.freedesktop.Secret.Generic",
    1: "org.gnome.keyring.NetworkPassword",
    2: "org.gnome.keyring.Note",
    3: "org.gnome.keyring.ChainedKeyring",
    4: "org.gnome.keyring.EncryptionKey",
    0x100: "org.gnome.keyring.PkStorage",
  ]

  /// The attributes keychaind stores for an item: `gkr:compat:*` markers dropped, the schema
  /// from the item type when there is no `xdg:schema` (as gnome-keyring shows it to clients).
  static func convert(_ raw: [RawAttribute], type: UInt32) -> [String: String] {
    var attributes: [String: String] = [:]
    for attribute in raw where !attribute.name.hasPrefix("gkr:compat:") {
      attributes[attribute.name] = attribute.value
    }
    if attributes["xdg:schema"] == nil, let schema = schemas[type & 0xFFFF] {
      attributes["xdg:schema"] = schema
    }
    return attributes
  }

  /// A time from a file (seconds since 1970), bounded so that a damaged value cannot trap.
  static func date(_ seconds: UInt64) -> Date {
    Date(timeIntervalSince1970: TimeInterval(min(seconds, 1 << 40)))
  }
}
