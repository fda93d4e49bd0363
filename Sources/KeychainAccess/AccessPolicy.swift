// SPDX-License-Identifier: MIT
//
// Who may read an item, as Apple's keychain decides it: every item has one owner (an access
// group, by default its creator's identity), the owner uses it without being asked, and anyone
// else needs a grant the user gave ("Always allow") or an answer for this process ("Allow
// once"). The rules are here and nowhere else; the daemon supplies the facts.

import Foundation

/// How keychaind applies the rules, from keychaind.conf's `access-control`.
public enum AccessMode: String, Sendable, CaseIterable {
  /// No identification, no log: today's behaviour exactly.
  case off
  /// Every access is identified and logged; no reply changes. The default.
  case audit
  /// Items are locked for applications that neither own them nor were allowed.
  case protect
}

extension AccessMode: Comparable {
  /// How much each mode protects: off, then audit, then protect.
  var level: Int {
    switch self {
    case .off: 0
    case .audit: 1
    case .protect: 2
    }
  }

  public static func < (lhs: AccessMode, rhs: AccessMode) -> Bool { lhs.level < rhs.level }
}

/// A remembered "Always allow": an application may read an item, every item of a collection,
/// or (as a member of a named group) every item of the collection that group owns.
public struct AccessGrant: Sendable, Hashable, Codable {
  /// The store's number for it.
  public var id: Int64
  /// The identity key it was given to.
  public var app: String
  /// The content the application had then (`AppIdentity.pin`); nil for an identity without.
  public var pin: String?
  /// The collection.
  public var collection: String
  /// The item's number in the collection; nil for the whole collection or a group.
  public var item: Int64?
  /// The named group (`group:NAME`) the application is a member of; nil for other grants.
  public var group: String?
  public var created: Date
  /// How it was made: `dialog`, `cli` or `learn`.
  public var source: String
  /// For a systemd unit (`app` is `unit:NAME`): the credential id under which the unit gets
  /// the item through keychaind's credentials socket; nil for every other grant.
  public var credential: String?

  public init(
    id: Int64 = 0, app: String, pin: String?, collection: String, item: Int64?,
    group: String? = nil, created: Date = Date(), source: String, credential: String? = nil
  ) {
    self.id = id
    self.app = app
    self.pin = pin
    self.collection = collection
    self.item = item
    self.group = group
    self.created = created
    self.source = source
    self.credential = credential
  }

  /// Whether it covers item `item` of `collection`, which `owner` owns.
  public func covers(collection: String, item: Int64, owner: String?) -> Bool {
    guard self.collection == collection else { return false }
    if let group { return group == owner }
    return self.item == nil || self.item == item
  }

  /// Whether it makes an application whose content is `pin` a member of `group`.
  public func admits(to group: String, pin: String?) -> Bool {
    self.group == group && (self.pin == nil || self.pin == pin)
  }

  /// The prefix of named groups' keys, which no identity key has.
  public static let groupPrefix = "group:"

  /// `group:NAME` for a name (given with or without the prefix) of 1–64 letters, digits, `.`,
  /// `_` or `-`; nil for any other.
  public static func groupKey(_ name: String) -> String? {
    let bare = name.hasPrefix(groupPrefix) ? String(name.dropFirst(groupPrefix.count)) : name
    let allowed = { (c: Unicode.Scalar) in
      c.isASCII
        && (c.properties.isAlphabetic || ("0"..."9").contains(c)
          || ".-_".unicodeScalars.contains(c))
    }
    guard (1...64).contains(bare.unicodeScalars.count), bare.unicodeScalars.allSatisfy(allowed)
    else { return nil }
    return groupPrefix + bare
  }
}

/// Who owns an item: an identity key, and the content its program had when it stored the item
/// (`AppIdentity.pin`), so that a program replaced at the same path is asked, as a changed
/// program is for a grant.
public struct ItemOwner: Sendable, Hashable {
  public var key: String
  public var pin: String?

  public init(key: String, pin: String? = nil) {
    self.key = key
    self.pin = pin
  }

  /// The owner an identity makes of what it creates; nil for one that cannot be remembered.
  public init?(_ identity: AppIdentity) {
    guard identity.isRememberable else { return nil }
    self.init(key: identity.key, pin: identity.pin)
  }

  /// How the store keeps it: the key, then, when there is one, a NUL and the pin (no path,
  /// and so no key, holds a NUL).
  public var sealedText: String { pin.map { "\(key)\u{0}\($0)" } ?? key }

  /// The owner `sealedText` describes.
  public init(sealedText text: String) {
    let parts = text.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
    self.init(key: String(parts[0]), pin: parts.count > 1 ? String(parts[1]) : nil)
  }
}

/// The answer to "may this application use this item now?".
public enum AccessAnswer: Sendable, Equatable {
  /// Yes, and why (`owner`, `grant` or `allowedOnce`).
  case allow(AuditRecord.Decision)
  /// Only if the user says so; `changed` when a grant exists for other content of the program.
  case ask(changed: Bool)
}

/// The rules (see the top of this file).
public enum AccessPolicy {
  /// Decides for `identity` and an item owned by `owner` (nil: no owner, an item from before
  /// access control or an import), given the grants the identity holds for it and whether the
  /// user allowed it once for this process.
  public static func decide(
    _ identity: AppIdentity, owner: ItemOwner?, grants: [AccessGrant], allowedOnce: Bool
  ) -> AccessAnswer {
    guard identity.isRememberable else {
      return allowedOnce ? .allow(.allowedOnce) : .ask(changed: false)
    }
    // The owner's program, with the content it had when it stored the item; another content
    // at the same path is a changed program, asked about like any other.
    let owns = owner?.key == identity.key
    if owns, owner?.pin == identity.pin { return .allow(.owner) }
    let mine = grants.filter { $0.app == identity.key }
    if mine.contains(where: { $0.pin == nil || $0.pin == identity.pin }) {
      return .allow(.grant)
    }
    if allowedOnce { return .allow(.allowedOnce) }
    return .ask(changed: owns || !mine.isEmpty)
  }
}
