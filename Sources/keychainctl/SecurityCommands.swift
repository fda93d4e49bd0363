// SPDX-License-Identifier: MIT
//
// security(1)'s password verbs and flags (-a -s -w -l -r -P -p -U), through the Keychain
// library: the same SecItem calls a Swift program makes, on the bus or the embedded store.

import ArgumentParser
import Foundation
import Keychain

/// The item flags security(1) shares between its add, find and delete verbs.
struct PasswordFlags: ParsableArguments {
  @Option(name: .customShort("a"), help: "The account name.") var account: String?
  @Option(name: .customShort("s"), help: "The service (generic) or server (internet) name.")
  var service: String?
  @Option(name: .customShort("l"), help: "The label.") var label: String?
  @Option(name: .customShort("r"), help: "Internet: the protocol (https, ftp, ssh, …).")
  var `protocol`: String?
  @Option(name: .customShort("P"), help: "Internet: the port.") var port: Int?
  @Option(name: .customShort("p"), help: "Internet: the path.") var path: String?

  /// The query dictionary these flags make for `itemClass`.
  func query(_ itemClass: CFString) -> [String: Any] {
    var query: [String: Any] = [kSecClass as String: itemClass]
    let internet = itemClass == kSecClassInternetPassword
    query[kSecAttrAccount as String] = account
    query[(internet ? kSecAttrServer : kSecAttrService) as String] = service
    query[kSecAttrLabel as String] = label
    if internet {
      query[kSecAttrProtocol as String] = `protocol`.map(Self.protocolCode)
      query[kSecAttrPort as String] = port
      query[kSecAttrPath as String] = path
    }
    return query
  }

  /// Apple's four-character protocol codes for the names people type.
  static func protocolCode(_ name: String) -> String {
    let codes = [
      "http": kSecAttrProtocolHTTP, "https": kSecAttrProtocolHTTPS, "ftp": kSecAttrProtocolFTP,
      "ftps": kSecAttrProtocolFTPS, "ssh": kSecAttrProtocolSSH, "imap": kSecAttrProtocolIMAP,
      "imaps": kSecAttrProtocolIMAPS, "smtp": kSecAttrProtocolSMTP, "pop3": kSecAttrProtocolPOP3,
      "pop3s": kSecAttrProtocolPOP3S, "ldap": kSecAttrProtocolLDAP, "smb": kSecAttrProtocolSMB,
    ]
    return codes[name.lowercased()] ?? name
  }
}

/// Exits the way security(1) does for `status`, with its message on stderr.
func check(_ status: OSStatus, _ verb: String) throws {
  guard status != errSecSuccess else { return }
  complain(
    "keychainctl \(verb): " + (SecCopyErrorMessageString(status, nil) ?? "OSStatus \(status)"))
  switch status {
  case errSecItemNotFound: throw Exit.itemNotFound
  case errSecDuplicateItem: throw Exit.duplicateItem
  case errSecNotAvailable: throw Exit.unavailable
  default: throw Exit.failure
  }
}

/// add-generic-password and add-internet-password.
struct AddPassword {
  static func run(_ flags: PasswordFlags, password: String?, update: Bool, _ itemClass: CFString)
    throws
  {
    let secret =
      password.map { Data($0.utf8) }
      ?? Data(SecretInput.read(prompt: "password data for new item: ", trimNewline: true))
    var add = flags.query(itemClass)
    add[kSecValueData as String] = secret
    var status = SecItemAdd(add as CFDictionary, nil)
    if status == errSecDuplicateItem, update {
      var query = flags.query(itemClass)
      query[kSecAttrLabel as String] = nil
      status = SecItemUpdate(
        query as CFDictionary, [kSecValueData as String: secret] as CFDictionary)
    }
    try check(status, "add")
  }
}

/// find-generic-password and find-internet-password.
struct FindPassword {
  static func run(_ flags: PasswordFlags, passwordOnly: Bool, json: Bool, _ itemClass: CFString)
    throws
  {
    var query = flags.query(itemClass)
    query[kSecReturnAttributes as String] = true
    query[kSecReturnData as String] = true
    var result: CFTypeRef?
    try check(SecItemCopyMatching(query as CFDictionary, &result), "find")
    guard let item = result as? [String: Any] else { throw Exit.failure }
    let password = String(decoding: item[kSecValueData as String] as? Data ?? Data(), as: UTF8.self)
    if passwordOnly, !json {
      print(password)
      return
    }
    var shown: [String: Any] = [:]
    for (key, value) in item where key != kSecValueData as String {
      shown[key] = value is Date ? ISO8601DateFormatter().string(from: value as! Date) : value
    }
    if json {
      // As in the text form, the password only when asked for with -w.
      if passwordOnly { shown["password"] = password }
      try printJSON(shown.mapValues { $0 is Data ? (($0 as! Data).base64EncodedString()) : $0 })
    } else {
      for (key, value) in shown.sorted(by: { $0.key < $1.key }) {
        print("    \"\(key)\"=\"\(value)\"")
      }
    }
  }
}

struct AddGenericPassword: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Add a generic password (-a -s).")
  @OptionGroup var flags: PasswordFlags
  @Option(name: .customShort("w"), help: "The password (default: asked for, or read from stdin).")
  var password: String?
  @Flag(name: .customShort("U"), help: "Update the item if it exists.") var update = false

  func run() throws {
    try AddPassword.run(flags, password: password, update: update, kSecClassGenericPassword)
  }
}

struct FindGenericPassword: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Find a generic password.")
  @OptionGroup var flags: PasswordFlags
  @Flag(name: .customShort("w"), help: "Print only the password (with --json: include it).")
  var passwordOnly = false
  @Flag(help: "Print JSON.") var json = false

  func run() throws {
    try FindPassword.run(flags, passwordOnly: passwordOnly, json: json, kSecClassGenericPassword)
  }
}

struct DeleteGenericPassword: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Delete generic passwords.")
  @OptionGroup var flags: PasswordFlags

  func run() throws {
    try check(SecItemDelete(flags.query(kSecClassGenericPassword) as CFDictionary), "delete")
  }
}

struct AddInternetPassword: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Add an internet password (-a -s -r -P -p).")
  @OptionGroup var flags: PasswordFlags
  @Option(name: .customShort("w"), help: "The password (default: asked for, or read from stdin).")
  var password: String?
  @Flag(name: .customShort("U"), help: "Update the item if it exists.") var update = false

  func run() throws {
    try AddPassword.run(flags, password: password, update: update, kSecClassInternetPassword)
  }
}

struct FindInternetPassword: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Find an internet password.")
  @OptionGroup var flags: PasswordFlags
  @Flag(name: .customShort("w"), help: "Print only the password (with --json: include it).")
  var passwordOnly = false
  @Flag(help: "Print JSON.") var json = false

  func run() throws {
    try FindPassword.run(flags, passwordOnly: passwordOnly, json: json, kSecClassInternetPassword)
  }
}

struct DeleteInternetPassword: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Delete internet passwords.")
  @OptionGroup var flags: PasswordFlags

  func run() throws {
    try check(SecItemDelete(flags.query(kSecClassInternetPassword) as CFDictionary), "delete")
  }
}
