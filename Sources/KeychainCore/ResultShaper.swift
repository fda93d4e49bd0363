// SPDX-License-Identifier: MIT
//
// The shapes `SecItemCopyMatching` returns (the seeds' "Item Return Result Keys"): one value
// for one return key and one match, a dictionary for several return keys, an array of either
// when more than one match may come back.

import Foundation

/// One item a search found, with everything a result may need.
public struct FoundItem: Sendable {
  public var itemClass: ItemClass
  /// The Keychain attributes, including label and dates.
  public var attributes: [AttributeKey: AttributeValue]
  /// The item's data, when the search asked for it.
  public var data: [UInt8]?
  /// A stable identifier of the item in its store.
  public var persistentReference: [UInt8]

  public init(
    itemClass: ItemClass, attributes: [AttributeKey: AttributeValue], data: [UInt8]?,
    persistentReference: [UInt8]
  ) {
    self.itemClass = itemClass
    self.attributes = attributes
    self.data = data
    self.persistentReference = persistentReference
  }
}

/// Builds `SecItemCopyMatching` results from found items.
public enum ResultShaper {
  /// The result for `items` under `query`, or nil when the query asked for nothing back.
  /// `reference` makes the object for `kSecReturnRef` (a `SecKey`, for example).
  public static func result(
    for items: [FoundItem], query: ItemQuery, reference: (FoundItem) -> Any?
  ) -> Any? {
    guard !query.returns.isEmpty else { return nil }
    let values = items.prefix(query.matchLimit.maximum ?? items.count).map {
      value(for: $0, returns: query.returns, reference: reference)
    }
    return query.matchLimit == .one ? values.first.map { $0 as Any } : values
  }

  /// The value for one item: a bare value for one return key, a dictionary for several.
  public static func value(
    for item: FoundItem, returns: ReturnOptions, reference: (FoundItem) -> Any?
  ) -> Any {
    let data = Data(item.data ?? [])
    let persistent = Data(item.persistentReference)
    switch returns {
    case .data: return data
    case .persistentReference: return persistent
    case .reference: return reference(item) ?? persistent
    case .attributes: return attributeDictionary(item)
    default:
      var dictionary = returns.contains(.attributes) ? attributeDictionary(item) : [:]
      if returns.contains(.data) { dictionary[QueryParser.Key.valueData] = data }
      if returns.contains(.persistentReference) {
        dictionary[QueryParser.Key.valuePersistentRef] = persistent
      }
      if returns.contains(.reference), let ref = reference(item) {
        dictionary[QueryParser.Key.valueRef] = ref
      }
      return dictionary
    }
  }

  /// The attributes as `[String: Any]` keyed by `kSecAttr…` raw strings, with `kSecClass`.
  public static func attributeDictionary(_ item: FoundItem) -> [String: Any] {
    var dictionary: [String: Any] = [QueryParser.Key.itemClass: item.itemClass.rawValue]
    for (key, value) in item.attributes { dictionary[key.rawValue] = value.anyValue }
    return dictionary
  }
}
