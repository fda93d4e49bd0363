// SPDX-License-Identifier: MIT
//
// Query dictionaries (`[String: Any]` with `kSec…` keys) parsed into typed values. Anything the
// model does not understand is refused with `errSecParam` and a message naming the key, rather
// than silently ignored: a typo in a query must not turn into a search that matches everything.

import Foundation

/// Parses the dictionaries of `SecItemAdd`, `SecItemCopyMatching`, `SecItemUpdate` and
/// `SecItemDelete`.
public enum QueryParser {
  /// The raw strings of the non-attribute keys (Apple's values of the `kSec…` constants).
  public enum Key {
    public static let itemClass = "class"
    public static let returnData = "r_Data"
    public static let returnAttributes = "r_Attributes"
    public static let returnRef = "r_Ref"
    public static let returnPersistentRef = "r_PersistentRef"
    public static let matchLimit = "m_Limit"
    public static let matchLimitOne = "m_LimitOne"
    public static let matchLimitAll = "m_LimitAll"
    public static let matchCaseInsensitive = "m_CaseInsensitive"
    public static let valueData = "v_Data"
    public static let valueRef = "v_Ref"
    public static let valuePersistentRef = "v_PersistentRef"
    public static let useDataProtectionKeychain = "nleg"
    public static let useAuthenticationUI = "u_AuthUI"
    public static let useAuthenticationUIAllow = "u_AuthUIA"
    public static let useAuthenticationUIFail = "u_AuthUIF"
    public static let useAuthenticationUISkip = "u_AuthUIS"
  }

  private enum Use { case add, search, update, delete }

  /// The dictionary of `SecItemAdd`.
  public static func add(_ dictionary: [String: Any]) throws(KeychainStatus) -> NewItem {
    var parsed = try parse(dictionary, for: .add)
    if let reference = parsed.reference {
      guard reference.referenceClass == parsed.query.itemClass else {
        throw .param(
          "kSecValueRef holds a \(reference.referenceClass), kSecClass says \(parsed.query.itemClass)"
        )
      }
      guard parsed.data == nil else { throw .param("kSecValueData and kSecValueRef together") }
      parsed.data = reference.referenceData
      parsed.query.attributes.merge(reference.referenceAttributes) { given, _ in given }
    }
    return NewItem(
      itemClass: parsed.query.itemClass, attributes: parsed.query.attributes,
      data: parsed.data ?? [], returns: parsed.query.returns)
  }

  /// The query of `SecItemCopyMatching`.
  public static func search(_ dictionary: [String: Any]) throws(KeychainStatus) -> ItemQuery {
    try parse(dictionary, for: .search).query
  }

  /// The query of `SecItemDelete`; it deletes every match.
  public static func delete(_ dictionary: [String: Any]) throws(KeychainStatus) -> ItemQuery {
    var query = try parse(dictionary, for: .delete).query
    query.matchLimit = .all
    return query
  }

  /// The query and the changes of `SecItemUpdate`; it updates every match.
  public static func update(_ dictionary: [String: Any], changes: [String: Any])
    throws(KeychainStatus) -> (ItemQuery, ItemChanges)
  {
    var query = try parse(dictionary, for: .delete).query
    query.matchLimit = .all
    guard !changes.isEmpty else { throw .param("SecItemUpdate needs attributes to update") }
    var changed = changes
    // The class may be repeated in the changes, but not changed.
    if let itemClass = changed.removeValue(forKey: Key.itemClass) {
      guard (itemClass as? String) == query.itemClass.rawValue else {
        throw .param("SecItemUpdate cannot change kSecClass")
      }
    }
    changed[Key.itemClass] = query.itemClass.rawValue
    let update = try parse(changed, for: .update)
    return (query, ItemChanges(attributes: update.query.attributes, data: update.data))
  }

  private struct Parsed {
    var query: ItemQuery
    var data: [UInt8]?
    var reference: (any ItemReference)?
  }

  private static func parse(_ dictionary: [String: Any], for use: Use) throws(KeychainStatus)
    -> Parsed
  {
    guard let classValue = dictionary[Key.itemClass] else { throw .param("kSecClass is missing") }
    guard let raw = classValue as? String, let itemClass = ItemClass(rawValue: raw) else {
      throw .param("kSecClass has an unknown value")
    }
    var parsed = Parsed(query: ItemQuery(itemClass: itemClass))
    var limitGiven = false
    for (key, value) in dictionary where key != Key.itemClass {
      switch key {
      case Key.returnData, Key.returnAttributes, Key.returnRef, Key.returnPersistentRef:
        guard use == .add || use == .search else { throw .param("\(key) is not allowed here") }
        guard case .bool(let on)? = AttributeValue.from(value, as: .bool) else {
          throw .param("\(key) must be a boolean")
        }
        let option: ReturnOptions =
          switch key {
          case Key.returnData: .data
          case Key.returnAttributes: .attributes
          case Key.returnRef: .reference
          default: .persistentReference
          }
        if on { parsed.query.returns.insert(option) }
      case Key.matchLimit:
        guard use == .search || use == .delete else {
          throw .param("kSecMatchLimit is not allowed here")
        }
        parsed.query.matchLimit = try matchLimit(value)
        limitGiven = true
      case Key.matchCaseInsensitive:
        guard use == .search || use == .delete else {
          throw .param("kSecMatchCaseInsensitive is not allowed here")
        }
        guard case .bool(let on)? = AttributeValue.from(value, as: .bool) else {
          throw .param("kSecMatchCaseInsensitive must be a boolean")
        }
        parsed.query.caseInsensitive = on
      case Key.valueData:
        guard use == .add || use == .update else {
          throw .param("kSecValueData is not allowed here")
        }
        guard case .data(let bytes)? = AttributeValue.from(value, as: .data) else {
          throw .param("kSecValueData must be Data")
        }
        parsed.data = bytes
      case Key.valueRef:
        guard let reference = value as? any ItemReference else {
          throw .param("kSecValueRef must be a keychain item reference")
        }
        if use == .add {
          parsed.reference = reference
        } else {
          guard reference.referenceClass == itemClass else {
            throw .param("kSecValueRef of another class")
          }
          parsed.query.attributes.merge(reference.referenceAttributes) { given, _ in given }
        }
      case Key.valuePersistentRef:
        guard use != .add, use != .update else {
          throw .param("kSecValuePersistentRef is not allowed here")
        }
        guard case .data(let bytes)? = AttributeValue.from(value, as: .data) else {
          throw .param("kSecValuePersistentRef must be Data")
        }
        parsed.query.persistentReference = bytes
      case Key.useDataProtectionKeychain:
        // There is one keychain model on Linux; the flag changes nothing.
        guard AttributeValue.from(value, as: .bool) != nil else {
          throw .param("kSecUseDataProtectionKeychain must be a boolean")
        }
      case Key.useAuthenticationUI:
        switch value as? String {
        case Key.useAuthenticationUIAllow: parsed.query.authenticationUI = .allow
        case Key.useAuthenticationUIFail: parsed.query.authenticationUI = .fail
        case Key.useAuthenticationUISkip: parsed.query.authenticationUI = .skip
        default: throw .param("kSecUseAuthenticationUI has an unknown value")
        }
      default:
        guard let attribute = AttributeKey(rawValue: key) else {
          throw .param("unknown key \(DBusSafe.quote(key))")
        }
        guard itemClass.attributes.contains(attribute) else {
          throw .param("\(key) is not an attribute of \(itemClass.rawValue) items")
        }
        // Apple takes key types and classes as numbers or strings ("42" or 42).
        let numericString = (attribute == .keyType || attribute == .keyClass) && itemClass == .key
        let given =
          numericString ? AttributeValue.integer(value).map { String($0) } ?? value : value
        guard let typed = AttributeValue.from(given, as: attribute.kind(for: itemClass)) else {
          throw .param("\(key) needs a \(attribute.kind(for: itemClass).rawValue) value")
        }
        if use != .search, use != .delete,
          attribute == .creationDate || attribute == .modificationDate
        {
          throw .param("\(key) is set by the keychain")
        }
        parsed.query.attributes[attribute] = typed
      }
    }
    if limitGiven, parsed.query.matchLimit == .one, use == .delete {
      // Apple deletes every match whatever the limit; say so rather than surprise.
      throw .param("SecItemDelete deletes every match; kSecMatchLimitOne is not supported")
    }
    return parsed
  }

  private static func matchLimit(_ value: Any) throws(KeychainStatus) -> MatchLimit {
    if let text = value as? String {
      switch text {
      case Key.matchLimitOne: return .one
      case Key.matchLimitAll: return .all
      default: break
      }
    }
    guard let n = AttributeValue.integer(value), n >= 1, n <= Int64(Int32.max) else {
      throw .param("kSecMatchLimit must be kSecMatchLimitOne, kSecMatchLimitAll or a count ≥ 1")
    }
    return n == 1 ? .one : .count(Int(n))
  }
}

/// Shortening untrusted keys for messages.
enum DBusSafe {
  static func quote(_ text: String) -> String {
    "'" + String(text.prefix(40)) + (text.count > 40 ? "…'" : "'")
  }
}
