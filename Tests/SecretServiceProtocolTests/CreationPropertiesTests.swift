// SPDX-License-Identifier: MIT
//
// The creation methods' `a{sv}`, read as gnome-keyring reads it: what a client sends comes back
// whole, and each kind of mistake gets gnome-keyring's error (GnomeKeyringParityTests compares
// the same mistakes with gnome-keyring itself on the bus).

import KeychainDBus
import SecretServiceProtocol
import Testing

@Suite struct CreationPropertiesTests {
  @Test func itemPropertiesRoundTrip() throws {
    let sent = NewItemProperties(
      label: "Mail", attributes: ["user": "ada", "xdg:schema": "org.example.Mail"], type: "x")
    #expect(try NewItemProperties(sent.dbusProperties) == sent)
    let empty = try NewItemProperties([:])
    #expect(empty.label.isEmpty && empty.attributes.isEmpty && empty.type == nil)
  }

  @Test func aTypeWithoutASchemaIsStoredAsTheSchema() {
    let typed = NewItemProperties(label: "", attributes: ["a": "1"], type: "org.example.Pw")
    #expect(typed.storedAttributes == ["a": "1", "xdg:schema": "org.example.Pw"])
    var both = typed
    both.attributes["xdg:schema"] = "org.example.Other"
    #expect(both.storedAttributes == both.attributes, "a schema the client gave is kept")
    var blank = typed
    blank.type = ""
    #expect(blank.storedAttributes == ["a": "1"])
  }

  @Test func itemPropertyMistakesGetGnomeKeyringsErrors() {
    let mistakes: [([String: DBusValue], DBusError)] = [
      ([ItemProperties.label: .uint32(1)], SecretServiceError.invalidPropertiesArgument),
      ([ItemProperties.attributes: .string("a=b")], SecretServiceError.invalidPropertiesArgument),
      ([ItemProperties.type: .boolean(true)], SecretServiceError.invalidPropertiesArgument),
      (["org.example.Unknown": .string("x")], SecretServiceError.invalidPropertiesArgument),
      (
        [SecretService.ItemProperty.locked.qualifiedName: .boolean(false)],
        SecretServiceError.readOnlyField
      ),
    ]
    for (properties, expected) in mistakes {
      #expect(throws: expected) { try NewItemProperties(properties) }
    }
  }

  @Test func collectionPropertiesTakeALabelAndNothingElse() throws {
    let invalid = SecretServiceError.invalidProperties
    #expect(try NewCollectionProperties([:], invalid: invalid).label == "")
    let sent = NewCollectionProperties(label: "Work")
    #expect(try NewCollectionProperties(sent.dbusProperties, invalid: invalid) == sent)
    #expect(throws: invalid) {
      try NewCollectionProperties([ItemProperties.label: .string("an item's")], invalid: invalid)
    }
    #expect(throws: invalid) {
      try NewCollectionProperties([CollectionProperties.label: .uint32(2)], invalid: invalid)
    }
  }
}
