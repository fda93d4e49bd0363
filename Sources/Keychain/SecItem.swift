// SPDX-License-Identifier: MIT
// swift-format-ignore-file: AlwaysUseLowerCamelCase
// (Apple's function names are the API: code written for the Security framework calls them.)
//
// The four keychain item functions, with Apple's signatures. Each parses its dictionary with
// KeychainCore's `QueryParser` (so nonsense is `errSecParam`, never a guess), runs on the
// process's backend, and hands results back as the Foundation objects the seeds cast to:
// `[String: Any]`, `Data`, arrays of either, or a `SecKey`. `result` is the caller's
// out-parameter (nil when no result is wanted): assigned at most once, before the function
// returns, and never kept; the caller's variable owns the object stored there.

import Foundation
import KeychainCore

/// Adds an item. With return keys in `attributes`, `result` receives the new item the way
/// `SecItemCopyMatching` would return it. Returns `errSecDuplicateItem` when an item of the
/// class with the same primary key exists.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?)
  -> OSStatus
{
  status { () throws(KeychainStatus) in
    let item = try QueryParser.add(try dictionary(attributes))
    let added = try BackendRegistry.current().add(item)
    var query = ItemQuery(itemClass: item.itemClass)
    query.returns = item.returns
    result?.pointee = shape(
      ResultShaper.result(for: [added], query: query, reference: { SecKey($0) }))
  }
}

/// Finds items matching `query`; `result` receives what its `kSecReturn…` keys ask for, one
/// value or an array depending on `kSecMatchLimit`. Returns `errSecItemNotFound` when nothing
/// matches.
@discardableResult
public func SecItemCopyMatching(
  _ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?
) -> OSStatus {
  status { () throws(KeychainStatus) in
    let parsed = try QueryParser.search(try dictionary(query))
    let found = try BackendRegistry.current().copyMatching(parsed)
    result?.pointee = shape(
      ResultShaper.result(for: found, query: parsed, reference: { SecKey($0) }))
  }
}

/// Changes every item matching `query` with `attributesToUpdate` (attributes, and the data
/// with `kSecValueData`). Returns `errSecDuplicateItem`, changing nothing, if two items would
/// end up with the same primary key.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
  status { () throws(KeychainStatus) in
    let (parsed, changes) = try QueryParser.update(
      try dictionary(query), changes: try dictionary(attributesToUpdate))
    try BackendRegistry.current().update(parsed, changes)
  }
}

/// Deletes every item matching `query`. Returns `errSecItemNotFound` when nothing matches.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
  status { () throws(KeychainStatus) in
    try BackendRegistry.current().delete(try QueryParser.delete(try dictionary(query)))
  }
}

private func status(_ body: () throws(KeychainStatus) -> Void) -> OSStatus {
  do {
    try body()
    return errSecSuccess
  } catch {
    return error.code
  }
}

private func dictionary(_ dictionary: CFDictionary) throws(KeychainStatus) -> [String: Any] {
  guard let swift = dictionary as? [String: Any] else {
    throw .param("the dictionary's keys must be strings (kSec… constants)")
  }
  return swift
}

/// A Swift result as the object Apple's functions return: dictionaries and arrays become
/// `NSDictionary` and `NSArray`, so `as? [String: Any]` and `as? [[String: Any]]` work.
func shape(_ value: Any?) -> CFTypeRef? {
  switch value {
  case nil: return nil
  case let dictionary as [String: Any]: return dictionary as NSDictionary
  case let array as [Any]: return array.compactMap(shape) as NSArray
  case let data as Data: return data as NSData
  case let value?: return value as AnyObject
  }
}
