// SPDX-License-Identifier: MIT
//
// KWallet's side file, `<wallet>_attributes.json` beside the `.kwl`: kwalletd5
// (since 5.97) and ksecretd serve the Secret Service too, and keep what a Secret Service
// client stored there that a KWallet entry cannot hold: for each entry "folder/key", the item's
// attributes, content type and times. An entry with a record is brought back as the item that
// client stored (its attributes, its label: the key, or "folder/key" outside the folder
// `Secret Service`, without the `__N_` KDE adds to repeated labels), not as a KWallet entry, so
// that the libsecret program that stored it finds it again (KDE's own migration drops these).

import Foundation
import KWalletFormat
import KeychainCrypto
import KeychainStore

/// The records of a wallet's side file, by "folder/key"; none when there is no side file.
struct SecretServiceRecords {
  struct Record {
    var attributes: [String: String]
    var contentType: String
    var created: Date?
    var modified: Date?
  }

  private var records: [String: Record] = [:]

  /// Reads `file` if it exists; a side file that is not KWallet's JSON is damage, reported.
  init(reading file: String) throws {
    guard FileManager.default.fileExists(atPath: file) else { return }
    let source = try KeyringDirectory.readFile(file, name: "")
    guard let object = try? JSONSerialization.jsonObject(with: Data(source.bytes)) as? [String: Any]
    else {
      throw KeyringFileError.malformed(file: file, position: "byte 0", reason: "not a JSON object")
    }
    for (entry, value) in object where !entry.hasPrefix("$") {
      guard let value = value as? [String: Any] else { continue }
      records[entry] = Record(
        attributes: (value["attributes"] as? [String: Any] ?? [:]).compactMapValues {
          $0 as? String
        },
        contentType: value["$fdo_mime_type"] as? String ?? KWalletEntry.contentType,
        created: Self.date(value["$fdo_created"]), modified: Self.date(value["$fdo_modified"]))
    }
  }

  /// Unix seconds, as KDE writes them: a string (or a number).
  private static func date(_ value: Any?) -> Date? {
    let seconds = (value as? String).flatMap(Double.init) ?? (value as? NSNumber)?.doubleValue
    return seconds.map { Date(timeIntervalSince1970: min(max($0, 0), Double(1 << 40))) }
  }

  /// The item a Secret Service client stored as `entry`, if the side file has its record.
  func item(for entry: KWalletFileEntry) throws -> ImportedItem? {
    guard let record = records[entry.folder + "/" + entry.key] else { return nil }
    let value = entry.value.withUnsafeBytes { Array($0) }
    let secret: [UInt8]
    switch entry.type {
    case .password: secret = Array(try QDataStream.decodeString(value).utf8)
    case .map: secret = KWalletEntry.map(try QDataStream.decodeMap(value)).secret
    case .stream, .unknown: secret = value
    }
    let key = Self.withoutRepeatSuffix(entry.key)
    return ImportedItem(
      label: entry.folder == "Secret Service" ? key : entry.folder + "/" + key,
      attributes: record.attributes, secret: SecureBytes(copying: secret),
      contentType: record.contentType, created: record.created, modified: record.modified)
  }

  /// `label__3_` → `label`: KDE's suffix for a repeated label.
  static func withoutRepeatSuffix(_ key: String) -> String {
    let last = key.index(key.endIndex, offsetBy: -1, limitedBy: key.startIndex) ?? key.startIndex
    guard key.hasSuffix("_"), let range = key[..<last].range(of: "__", options: .backwards) else {
      return key
    }
    let digits = key[range.upperBound..<last]
    return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
      ? String(key[..<range.lowerBound]) : key
  }
}
