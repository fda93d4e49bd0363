// SPDX-License-Identifier: MIT
//
// One item of a v1 keyring once decrypted: the GVariant `(a{ss} s t t ay)` of attributes,
// label, created and modified (Unix seconds) and the secret, which stays in the decrypted
// secure buffer. oo7 keeps an item's content type as the attribute `xdg:content-type`; it
// becomes keychaind's content type and leaves the attributes, so that a client's later
// CreateItem with the attributes it always used replaces the item instead of adding a twin.

import Foundation
import KeychainCrypto

/// A decrypted item of a v1 keyring.
public struct V1Item: Sendable {
  /// Its position in the file, from 0 (oo7's paths number items by it, so it is not stable).
  public var index: Int
  public var label: String
  /// Its attributes, without `xdg:content-type`.
  public var attributes: [String: String]
  public var contentType: String
  public var secret: SecureBytes
  public var created: Date
  public var modified: Date
  /// Whether the file's index holds the MACs of these attributes (nothing depends on it).
  public var indexMatches = true
  /// The attributes as the file holds them, `xdg:content-type` included: what its index covers.
  var storedAttributes: [String: String] {
    var stored = attributes
    stored[Self.contentTypeAttribute] = storedContentType
    return stored
  }
  /// The `xdg:content-type` the item had, if any.
  var storedContentType: String?

  /// The attribute oo7 keeps the content type in.
  public static let contentTypeAttribute = "xdg:content-type"

  /// Reads a plaintext item from `bytes`, which are `plaintext`'s; the secret is a slice of it.
  static func parse(
    _ bytes: UnsafeRawBufferPointer, _ plaintext: SecureBytes, file: String, base: Int, index: Int
  ) throws -> V1Item {
    let what = "item \(index)'s content"
    let value = GVariantValue(bytes: bytes, range: 0..<bytes.count, file: file, base: base)
    let members = try value.members(
      [
        .variable(alignment: 1), .variable(alignment: 1), .fixed(size: 8, alignment: 8),
        .fixed(size: 8, alignment: 8), .variable(alignment: 1),
      ], what)
    var attributes: [String: String] = [:]
    let entries = try members[0].elements(
      alignment: 1, limit: KeyringLimits.maxAttributes, "\(what)'s attributes")
    for entry in entries {
      let pair = try entry.members([.variable(alignment: 1), .variable(alignment: 1)], what)
      let name = try pair[0].string("an attribute name")
      guard attributes.updateValue(try pair[1].string("an attribute value"), forKey: name) == nil
      else { throw entry.damaged("\(what) holds the attribute \(name) twice") }
    }
    let contentType = attributes.removeValue(forKey: contentTypeAttribute)
    return V1Item(
      index: index, label: try members[1].string("\(what)'s label"), attributes: attributes,
      contentType: contentType.flatMap { $0.isEmpty ? nil : $0 } ?? "text/plain",
      secret: plaintext.slice(members[4].range),
      created: date(try members[2].u64("\(what)'s creation time")),
      modified: date(try members[3].u64("\(what)'s modification time")),
      storedContentType: contentType)
  }

  /// A time from the file. libsecret on a big-endian host writes item times in its own byte
  /// order: a time over a day in the future whose byte swap is not is read swapped.
  static func date(_ seconds: UInt64, now: Date = Date()) -> Date {
    let soon = UInt64(max(0, now.timeIntervalSince1970 + 86_400))
    let swapped = seconds.byteSwapped
    let chosen = seconds > soon && swapped <= soon ? swapped : seconds
    return AttributeConversion.date(chosen)
  }
}
