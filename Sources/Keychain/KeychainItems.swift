// SPDX-License-Identifier: MIT
//
// The typed Swift API, for new code: the same operations as the SecItem functions, on
// KeychainCore's types instead of dictionaries, with failures thrown as `KeychainStatus`.

@_exported import KeychainCore

/// Keychain items through typed queries, on the process's backend.
///
/// ```swift
/// try KeychainItems.setPassword("s3cret", service: "mail.example.com", account: "alice")
/// let password = try KeychainItems.password(service: "mail.example.com", account: "alice")
/// ```
public enum KeychainItems {
  /// Adds `item`; throws `KeychainStatus.duplicateItem` if its primary key is taken.
  @discardableResult
  public static func add(_ item: NewItem) throws(KeychainStatus) -> FoundItem {
    try BackendRegistry.current().add(item)
  }

  /// The items matching `query`, at most as many as its match limit; throws
  /// `KeychainStatus.itemNotFound` when there are none.
  public static func find(_ query: ItemQuery) throws(KeychainStatus) -> [FoundItem] {
    try BackendRegistry.current().copyMatching(query)
  }

  /// Applies `changes` to every item matching `query`.
  public static func update(_ query: ItemQuery, _ changes: ItemChanges) throws(KeychainStatus) {
    try BackendRegistry.current().update(query, changes)
  }

  /// Deletes every item matching `query`.
  public static func delete(_ query: ItemQuery) throws(KeychainStatus) {
    var all = query
    all.matchLimit = .all
    try BackendRegistry.current().delete(all)
  }

  /// The generic password for `service` and `account`, or nil if there is none.
  public static func password(service: String, account: String) throws(KeychainStatus)
    -> String?
  {
    var query = passwordQuery(service: service, account: account)
    query.returns = .data
    do {
      return try find(query).first?.data.map { String(decoding: $0, as: UTF8.self) }
    } catch .itemNotFound {
      return nil
    }
  }

  /// Stores `password` for `service` and `account`, replacing the one there was.
  public static func setPassword(_ password: String, service: String, account: String)
    throws(KeychainStatus)
  {
    let query = passwordQuery(service: service, account: account)
    do {
      try update(query, ItemChanges(attributes: [:], data: Array(password.utf8)))
    } catch .itemNotFound {
      try add(
        NewItem(
          itemClass: .genericPassword, attributes: query.attributes, data: Array(password.utf8)))
    }
  }

  /// Deletes the generic password for `service` and `account`; false if there was none.
  @discardableResult
  public static func deletePassword(service: String, account: String) throws(KeychainStatus)
    -> Bool
  {
    do {
      try delete(passwordQuery(service: service, account: account))
      return true
    } catch .itemNotFound {
      return false
    }
  }

  private static func passwordQuery(service: String, account: String) -> ItemQuery {
    var query = ItemQuery(itemClass: .genericPassword)
    query.attributes = [.service: .string(service), .account: .string(account)]
    return query
  }
}
