// SPDX-License-Identifier: MIT

import Foundation

/// What a search returns for each item (`kSecReturn…`).
public struct ReturnOptions: OptionSet, Hashable, Sendable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// `kSecReturnData`
  public static let data = ReturnOptions(rawValue: 1)
  /// `kSecReturnAttributes`
  public static let attributes = ReturnOptions(rawValue: 2)
  /// `kSecReturnRef`
  public static let reference = ReturnOptions(rawValue: 4)
  /// `kSecReturnPersistentRef`
  public static let persistentReference = ReturnOptions(rawValue: 8)
}

/// How many matches a search returns (`kSecMatchLimit`); one unless said otherwise.
public enum MatchLimit: Hashable, Sendable {
  case one
  case all
  case count(Int)

  /// The largest number of results, nil for no limit.
  public var maximum: Int? {
    switch self {
    case .one: 1
    case .all: nil
    case .count(let n): n
    }
  }
}

/// An item handed to `SecItemAdd` as `kSecValueRef` (a `SecKey`, for instance).
public protocol ItemReference: Sendable {
  /// The class of item the reference stands for.
  var referenceClass: ItemClass { get }
  /// Attributes the reference carries (key type, size, class…).
  var referenceAttributes: [AttributeKey: AttributeValue] { get }
  /// The bytes to store as the item's data (a key's external representation).
  var referenceData: [UInt8] { get }
}

/// Which items a search, update or delete applies to, and what a search returns.
public struct ItemQuery: Sendable {
  public var itemClass: ItemClass
  /// Attributes every match must have, with these values.
  public var attributes: [AttributeKey: AttributeValue] = [:]
  public var matchLimit: MatchLimit = .one
  /// `kSecMatchCaseInsensitive`: string attributes compare without regard to case.
  public var caseInsensitive = false
  public var returns: ReturnOptions = []
  /// `kSecValuePersistentRef`: only the item with this persistent reference.
  public var persistentReference: [UInt8]?
  /// `kSecUseAuthenticationUI`: what a locked item that might match does to the search.
  public var authenticationUI = AuthenticationUI.allow

  /// An empty query for `itemClass`: it matches every item of the class.
  public init(itemClass: ItemClass) { self.itemClass = itemClass }

  /// Whether an item of this class with `candidate` attributes matches.
  public func matches(_ candidate: [AttributeKey: AttributeValue]) -> Bool {
    attributes.allSatisfy { key, wanted in
      guard let have = candidate[key] else { return false }
      if caseInsensitive, case .string(let a) = wanted, case .string(let b) = have {
        return a.caseInsensitiveCompare(b) == .orderedSame
      }
      return have == wanted
    }
  }
}

/// An item to add: class, attributes, data, and what `SecItemAdd` should return.
public struct NewItem: Sendable {
  public var itemClass: ItemClass
  public var attributes: [AttributeKey: AttributeValue]
  public var data: [UInt8]
  public var returns: ReturnOptions

  public init(
    itemClass: ItemClass, attributes: [AttributeKey: AttributeValue] = [:], data: [UInt8] = [],
    returns: ReturnOptions = []
  ) {
    self.itemClass = itemClass
    self.attributes = attributes
    self.data = data
    self.returns = returns
  }

  /// The values of the class's primary key; absent attributes are part of the key as absent.
  public var primaryKey: [AttributeKey: AttributeValue] {
    attributes.filter { itemClass.primaryKey.contains($0.key) }
  }

  /// The query that finds items with the same primary key.
  public var duplicateQuery: ItemQuery {
    var query = ItemQuery(itemClass: itemClass)
    query.attributes = primaryKey
    query.matchLimit = .all
    return query
  }
}

/// The changes `SecItemUpdate` makes: attributes, and new data if `kSecValueData` is given.
public struct ItemChanges: Sendable {
  public var attributes: [AttributeKey: AttributeValue]
  public var data: [UInt8]?

  public init(attributes: [AttributeKey: AttributeValue] = [:], data: [UInt8]? = nil) {
    self.attributes = attributes
    self.data = data
  }
}

/// What a search does with items it could only read after the user unlocks them.
public enum AuthenticationUI: Sendable {
  /// Ask the user to unlock them (`kSecUseAuthenticationUIAllow`, the default).
  case allow
  /// Never ask; when only locked items could match, fail with `errSecInteractionNotAllowed`
  /// (`kSecUseAuthenticationUIFail`).
  case fail
  /// Never ask, and leave locked items out as if they were not there (`kSecUseAuthenticationUISkip`).
  case skip
}
