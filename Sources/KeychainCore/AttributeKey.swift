// SPDX-License-Identifier: MIT

import Foundation

/// An item attribute (`kSecAttr…`), with Apple's raw strings and the type of its values.
public enum AttributeKey: String, CaseIterable, Sendable, Hashable, Comparable {
  case accessible = "pdmn"
  case accessGroup = "agrp"
  case synchronizable = "sync"
  case creationDate = "cdat"
  case modificationDate = "mdat"
  case description = "desc"
  case comment = "icmt"
  case creator = "crtr"
  /// `kSecAttrType` for passwords, `kSecAttrKeyType` for keys: Apple uses one raw value.
  case type = "type"
  case label = "labl"
  case isInvisible = "invi"
  case isNegative = "nega"
  case account = "acct"
  case service = "svce"
  case generic = "gena"
  case securityDomain = "sdmn"
  case server = "srvr"
  case `protocol` = "ptcl"
  case authenticationType = "atyp"
  case port = "port"
  case path = "path"
  case keyClass = "kcls"
  case applicationLabel = "klbl"
  case applicationTag = "atag"
  case keySizeInBits = "bsiz"
  case effectiveKeySize = "esiz"
  case isPermanent = "perm"
  case canEncrypt = "encr"
  case canDecrypt = "decr"
  case canDerive = "drve"
  case canSign = "sign"
  case canVerify = "vrfy"
  case canWrap = "wrap"
  case canUnwrap = "unwp"
  case isSensitive = "sens"
  case isExtractable = "extr"
  case certificateType = "ctyp"
  case issuer = "issr"
  case serialNumber = "slnr"
  case subject = "subj"

  /// `kSecAttrKeyType` is the same attribute as `type`, seen on keys.
  public static let keyType = AttributeKey.type

  /// The kind of value the attribute holds for items of `itemClass`.
  public func kind(for itemClass: ItemClass) -> AttributeValue.Kind {
    switch self {
    case .creationDate, .modificationDate: .date
    case .generic, .applicationLabel, .applicationTag, .issuer, .serialNumber, .subject: .data
    case .creator, .port, .keySizeInBits, .effectiveKeySize, .certificateType: .number
    case .type: itemClass == .key ? .string : .number
    case .synchronizable, .isInvisible, .isNegative, .isPermanent, .canEncrypt, .canDecrypt,
      .canDerive, .canSign, .canVerify, .canWrap, .canUnwrap, .isSensitive, .isExtractable:
      .bool
    default: .string
    }
  }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A typed attribute value.
public enum AttributeValue: Hashable, Sendable, CustomStringConvertible {
  case string(String)
  case data([UInt8])
  case number(Int64)
  case bool(Bool)
  case date(Date)

  /// The kinds of value, one per case.
  public enum Kind: String, Sendable { case string, data, number, bool, date }

  /// This value's kind.
  public var kind: Kind {
    switch self {
    case .string: .string
    case .data: .data
    case .number: .number
    case .bool: .bool
    case .date: .date
    }
  }

  /// Converts a value from a query dictionary to `kind`, or nil when it cannot be one.
  /// Numbers may come as numeric strings and strings as numbers, as Apple accepts them.
  public static func from(_ value: Any, as kind: Kind) -> AttributeValue? {
    switch kind {
    case .string:
      if let s = value as? String { return .string(s) }
    case .data:
      if let d = value as? Data { return .data(Array(d)) }
      if let b = value as? [UInt8] { return .data(b) }
      if let s = value as? String { return .data(Array(s.utf8)) }
    case .number:
      if let n = integer(value) { return .number(n) }
      if let s = value as? String, let n = Int64(s) { return .number(n) }
    case .bool:
      if let b = value as? Bool { return .bool(b) }
      if let n = integer(value), n == 0 || n == 1 { return .bool(n == 1) }
    case .date:
      if let d = value as? Date { return .date(d) }
    }
    return nil
  }

  static func integer(_ value: Any) -> Int64? {
    switch value {
    case let v as Int: Int64(v)
    case let v as Int32: Int64(v)
    case let v as Int64: v
    case let v as UInt32: Int64(v)
    case let v as UInt16: Int64(v)
    case let v as UInt64: Int64(exactly: v)
    case let v as NSNumber where !(value is Bool): v.int64Value
    default: nil
    }
  }

  /// The value in the form `SecItemCopyMatching` returns: String, Data, Int, Bool or Date.
  public var anyValue: Any {
    switch self {
    case .string(let s): s
    case .data(let d): Data(d)
    case .number(let n): Int(n)
    case .bool(let b): b
    case .date(let d): d
    }
  }

  public var description: String {
    switch self {
    case .string(let s): "\"\(s)\""
    case .data(let d): "<\(d.count) bytes>"
    case .number(let n): "\(n)"
    case .bool(let b): "\(b)"
    case .date(let d): "\(d)"
    }
  }
}
