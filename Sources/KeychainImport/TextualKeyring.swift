// SPDX-License-Identifier: MIT
//
// gnome-keyring's textual format, for keyrings with no password (`gkm-secret-textual.c`): a
// GLib key file with a [keyring] group, a [N] group per item and [N:attributeK] groups for its
// attributes. gnome-keyring writes a secret with no escaping, so a secret holding a newline
// spills onto the next lines; GLib then refuses the whole file, gnome-keyring skips it, and the
// user finds an empty `login_1` keyring. This reader is line-based instead: after `secret=`, every
// line that is neither a key of the item group nor a group header belongs to the secret.

import Foundation
import KeychainCrypto

public enum TextualKeyring {
  /// The keys an item group has; a line starting with one of them ends a spilled secret.
  static let itemKeys = ["item-type", "display-name", "secret", "binary-secret", "mtime", "ctime"]

  /// Whether `bytes` look like a textual keyring: a [keyring] group before anything else.
  public static func looksLikeOne(_ bytes: [UInt8]) -> Bool {
    guard let text = String(validating: bytes.prefix(4096), as: UTF8.self) else {
      return String(decoding: bytes.prefix(64), as: UTF8.self).hasPrefix("[keyring]")
    }
    let first = text.split(separator: "\n").first { !$0.isEmpty && !$0.hasPrefix("#") }
    return first == "[keyring]"
  }

  /// Reads a whole file; throws `malformed` with the line number.
  public static func parse(_ bytes: [UInt8], file: String) throws -> KeyringContents {
    // Lines as bytes: a raw secret need not be UTF-8.
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map {
      $0.last == 0x0D ? $0.dropLast() : $0
    }
    var parser = Parser(file: file)
    var index = 0
    while index < lines.count {
      index = try parser.take(lines, at: index)
    }
    return try parser.finish()
  }

  private struct PendingItem {
    var type: UInt32 = 0
    var label = ""
    var secret: SecureBytes?
    var recovered = false
    var created: UInt64 = 0
    var modified: UInt64 = 0
    var attributes: [Int: (name: String?, type: String?, value: String?)] = [:]
    var accessEntries = 0
  }

  private struct Parser {
    let file: String
    var group: String?
    var label = ""
    var times: [UInt64] = []
    var items: [UInt32: PendingItem] = [:]
    var order: [UInt32] = []

    init(file: String) { self.file = file }

    func damaged(_ line: Int, _ reason: String) -> KeyringFileError {
      .malformed(file: file, position: "line \(line + 1)", reason: reason)
    }

    /// Handles line `index` (and the lines a spilled secret takes); returns the next index.
    mutating func take(_ lines: [ArraySlice<UInt8>], at index: Int) throws -> Int {
      let line = lines[index]
      if line.isEmpty || line.first == UInt8(ascii: "#") { return index + 1 }
      if line.first == UInt8(ascii: "[") {
        guard line.last == UInt8(ascii: "]"), let name = String(validating: line, as: UTF8.self)
        else { throw damaged(index, "a group header that does not close") }
        try open(group: String(name.dropFirst().dropLast()), line: index)
        return index + 1
      }
      guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
        throw damaged(index, "a line that is neither a group nor a key")
      }
      guard
        let key = String(validating: line[..<equals], as: UTF8.self)?
          .trimmingCharacters(in: .whitespaces)
      else { throw damaged(index, "a key that is not text") }
      let raw = line[(equals + 1)...]
      guard let group else { throw damaged(index, "a key before any group") }
      if key == "secret", let id = UInt32(group) {
        // Raw, untrimmed, unescaped; lines that belong to no key continue it.
        var secret = Array(raw)
        var next = index + 1
        var recovered = false
        while next < lines.count, !Self.endsSecret(lines[next]) {
          secret += [0x0A] + lines[next]
          recovered = true
          next += 1
        }
        // GLib ends a group with an empty line: before a group header or the end of the file
        // it is not the secret's. (gnome-keyring writes mtime and ctime after the secret.)
        if recovered, next == lines.count || lines[next].first == UInt8(ascii: "[") {
          while secret.last == 0x0A { secret.removeLast() }
        }
        items[id]?.secret = SecureBytes(copying: secret)
        items[id]?.recovered = recovered
        _ = secret.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
        return next
      }
      guard let value = String(validating: raw, as: UTF8.self) else {
        throw damaged(index, "the value of \(key) is not text")
      }
      try set(key, value, line: index)
      return index + 1
    }

    /// A line that ends a spilled secret: another key of the item group, or a group header.
    static func endsSecret(_ line: ArraySlice<UInt8>) -> Bool {
      guard let text = String(validating: line, as: UTF8.self) else { return false }
      if text.hasPrefix("["), text.hasSuffix("]") {
        let name = text.dropFirst().dropLast()
        let parts = name.split(separator: ":", omittingEmptySubsequences: false)
        return name == "keyring"
          || (parts.count <= 2 && UInt32(parts[0]) != nil
            && (parts.count == 1 || parts[1].hasPrefix("attribute") || parts[1].hasPrefix("acl")))
      }
      return itemKeys.contains { text.hasPrefix("\($0)=") }
    }

    mutating func open(group name: String, line: Int) throws {
      group = name
      if name == "keyring" { return }
      // `[]` and `[:x]` have no number: no first part to read (the fuzzer's find).
      let parts = name.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      guard let id = UInt32(parts[0]) else { throw damaged(line, "an unknown group [\(name)]") }
      if items[id] == nil {
        items[id] = PendingItem()
        order.append(id)
      }
      if parts.count == 2 {
        if parts[1].hasPrefix("acl") { items[id]?.accessEntries += 1 }
        guard parts[1].hasPrefix("attribute") || parts[1].hasPrefix("acl") else {
          throw damaged(line, "an unknown group [\(name)]")
        }
      }
    }

    mutating func set(_ key: String, _ value: String, line: Int) throws {
      guard let group else { return }
      if group == "keyring" {
        switch key {
        case "display-name": label = Self.unescaped(value)
        case "ctime", "mtime": if let time = UInt64(value), time != 0 { times.append(time) }
        default: break
        }
        return
      }
      let parts = group.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      guard let id = UInt32(parts[0]) else { return }
      if parts.count == 2 {
        guard let k = Int(parts[1].dropFirst("attribute".count)), parts[1].hasPrefix("attribute")
        else { return }  // access entries: counted, not kept
        var attribute = items[id]?.attributes[k] ?? (nil, nil, nil)
        switch key {
        case "name": attribute.name = Self.unescaped(value)
        case "type": attribute.type = value
        case "value": attribute.value = Self.unescaped(value)
        default: break
        }
        items[id]?.attributes[k] = attribute
        return
      }
      switch key {
      case "item-type":
        guard let type = UInt32(value) else { throw damaged(line, "item-type \(value)") }
        items[id]?.type = type
      case "display-name": items[id]?.label = Self.unescaped(value)
      case "binary-secret":
        guard let bytes = Self.hex(value) else { throw damaged(line, "binary-secret is not hex") }
        items[id]?.secret = SecureBytes(copying: bytes)
      case "ctime": items[id]?.created = UInt64(value) ?? 0
      case "mtime": items[id]?.modified = UInt64(value) ?? 0
      default: break
      }
    }

    func finish() throws -> KeyringContents {
      guard items.count <= KeyringLimits.maxItems else {
        throw KeyringFileError.tooLarge(file: file, reason: "\(items.count) items")
      }
      let converted = try order.map { id -> KeyringItem in
        let item = items[id]!
        var raw: [RawAttribute] = []
        for (_, attribute) in item.attributes.sorted(by: { $0.key < $1.key }) {
          guard let name = attribute.name, let value = attribute.value else {
            throw KeyringFileError.malformed(
              file: file, position: "item \(id)", reason: "an attribute without name or value")
          }
          raw.append(RawAttribute(name: name, value: value))
        }
        return KeyringItem(
          id: id, label: item.label, secret: item.secret ?? SecureBytes(count: 0) { _ in },
          attributes: AttributeConversion.convert(raw, type: item.type),
          created: AttributeConversion.date(item.created),
          modified: AttributeConversion.date(item.modified), accessEntries: item.accessEntries,
          recovered: item.recovered)
      }
      return KeyringContents(
        label: label, created: times.min().map(AttributeConversion.date),
        modified: times.max().map(AttributeConversion.date), items: converted, encrypted: false)
    }

    /// GLib's key-file escapes, as `set_string` writes them.
    static func unescaped(_ value: String) -> String {
      var out = ""
      var escaping = false
      for character in value {
        if escaping {
          switch character {
          case "s": out.append(" ")
          case "n": out.append("\n")
          case "t": out.append("\t")
          case "r": out.append("\r")
          default: out.append(character)
          }
          escaping = false
        } else if character == "\\" {
          escaping = true
        } else {
          out.append(character)
        }
      }
      return out
    }

    static func hex(_ text: String) -> [UInt8]? {
      let digits = Array(text.utf8)
      guard digits.count % 2 == 0 else { return nil }
      var bytes: [UInt8] = []
      bytes.reserveCapacity(digits.count / 2)
      for pair in stride(from: 0, to: digits.count, by: 2) {
        guard let high = Self.nibble(digits[pair]), let low = Self.nibble(digits[pair + 1])
        else { return nil }
        bytes.append(high << 4 | low)
      }
      return bytes
    }

    static func nibble(_ digit: UInt8) -> UInt8? {
      switch digit {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
      default: nil
      }
    }
  }
}
