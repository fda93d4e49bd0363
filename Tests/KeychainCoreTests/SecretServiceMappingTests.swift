// SPDX-License-Identifier: MIT

import Foundation
import KeychainCore
import Testing

@Suite struct SecretServiceMappingTests {
  let created = Date(timeIntervalSince1970: 1_700_000_000)
  let modified = Date(timeIntervalSince1970: 1_700_000_100)

  @Test func gnomeNetworkPasswordsAreInternetPasswords() {
    let raw = [
      "xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "alice",
      "server": "example.com", "protocol": "https", "port": "8443", "object": "/login",
      "domain": "CORP", "authtype": "basic",
    ]
    let (itemClass, attributes) = SecretServiceMapping.keychainAttributes(
      raw: raw, label: "L", created: created, modified: modified)
    #expect(itemClass == .internetPassword)
    #expect(attributes[.account] == .string("alice"))
    #expect(attributes[.protocol] == .string("htps"))
    #expect(attributes[.port] == .number(8443))
    #expect(attributes[.path] == .string("/login"))
    #expect(attributes[.securityDomain] == .string("CORP"))
    #expect(attributes[.label] == .string("L") && attributes[.creationDate] == .date(created))
    // And back: the same raw dictionary, byte for byte.
    var view = attributes
    view[.label] = nil
    let (back, label) = SecretServiceMapping.secretServiceAttributes(
      itemClass: itemClass, attributes: view)
    #expect(back == raw)
    #expect(label == "example.com")
  }

  @Test func otherSchemasAreGenericPasswordsAndKeepTheirAttributes() {
    let raw = [
      "xdg:schema": "chrome_libsecret_os_crypt_password_v2", "application": "chrome",
      "username": "me", "service": "Chrome Safe Storage",
    ]
    let (itemClass, attributes) = SecretServiceMapping.keychainAttributes(
      raw: raw, label: "Chrome Safe Storage", created: created, modified: modified)
    #expect(itemClass == .genericPassword)
    #expect(attributes[.service] == .string("Chrome Safe Storage"))
    #expect(attributes[.account] == .string("me"))
    // An update through the Keychain API changes only what it names.
    let updated = SecretServiceMapping.applying(
      [.service: .string("New"), .comment: .string("note")], itemClass: itemClass, to: raw)
    #expect(updated["application"] == "chrome" && updated["username"] == "me")
    #expect(updated["xdg:schema"] == "chrome_libsecret_os_crypt_password_v2")
    #expect(updated["service"] == "New" && updated["keychain:icmt"] == "note")
    #expect(SecretServiceMapping.itemClass(of: [:]) == .genericPassword)
  }

  @Test func keysRoundTripThroughKeychainEntries() {
    let attributes: [AttributeKey: AttributeValue] = [
      .applicationTag: .data(Array("com.example.keys.mykey".utf8)), .keyType: .string("42"),
      .keySizeInBits: .number(2048), .canSign: .bool(true),
    ]
    let (raw, _) = SecretServiceMapping.secretServiceAttributes(
      itemClass: .key, attributes: attributes)
    #expect(raw["xdg:schema"] == "org.keychain-linux.Key")
    #expect(raw["keychain:atag"] == "636f6d2e6578616d706c652e6b6579732e6d796b6579")
    let (itemClass, back) = SecretServiceMapping.keychainAttributes(
      raw: raw, label: "Key", created: created, modified: modified)
    #expect(itemClass == .key)
    for (key, value) in attributes { #expect(back[key] == value) }
  }

  @Test func searchPairsComeFromExactQueriesOnly() {
    var query = ItemQuery(itemClass: .internetPassword)
    query.attributes = [.server: .string("example.com"), .label: .string("ignored here")]
    #expect(
      SecretServiceMapping.searchPairs(for: query) == [
        "xdg:schema": "org.gnome.keyring.NetworkPassword", "server": "example.com",
      ])
    query.caseInsensitive = true
    #expect(
      SecretServiceMapping.searchPairs(for: query) == [
        "xdg:schema": "org.gnome.keyring.NetworkPassword"
      ])
  }
}
