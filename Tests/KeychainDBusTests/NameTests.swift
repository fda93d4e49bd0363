// SPDX-License-Identifier: MIT

import CKeychainDBus
import KeychainDBus
import Testing

@Suite struct NameTests {
  static let paths = [
    "/", "/a", "/org/freedesktop/secrets", "/a_b/C9", "", "a", "//", "/a/", "/a//b", "/a-b",
    "/ä", "/a.b", "/a b",
  ]
  static let busNames = [
    ":1.42", ":1.0", "org.freedesktop.secrets", "a.b", "a-b.c_d", "a", ".a.b", "a..b", "1a.b",
    "a.1b", ":1.2-3", "a.b.", "org.ä.b", String(repeating: "a.", count: 128) + "a",
  ]
  static let interfaces = [
    "org.freedesktop.Secret.Service", "a.b", "a", "a.1b", "a..b", "_a._b", "a-b.c", "a.b.",
    String(repeating: "a.", count: 127) + "a", String(repeating: "a.", count: 128) + "a",
  ]
  static let members = [
    "SearchItems", "_x", "x1", "1x", "", "a.b", "a-b", String(repeating: "m", count: 256),
  ]
  static let signatures = [
    "", "s", "a{sv}", "(oayays)", "a{o(oayays)}", "aaai", "a{vs}", "a{s}", "()", "(", "a", "z",
    "{ss}", "a{ss", "a{sss}", String(repeating: "a", count: 32) + "i",
    String(repeating: "a", count: 33) + "i",
    String(repeating: "(", count: 33) + "i"
      + String(repeating: ")", count: 33), String(repeating: "i", count: 256),
  ]

  /// libdbus's own verdict on a name, for comparison.
  private static func libdbusAccepts(
    _ text: String,
    _ check: (UnsafePointer<CChar>, UnsafeMutablePointer<CKeychainDBus.DBusError>)
      -> dbus_bool_t
  ) -> Bool {
    var error = CKeychainDBus.DBusError()
    dbus_error_init(&error)
    defer { dbus_error_free(&error) }
    return check(text, &error) != 0
  }

  @Test(arguments: paths) func objectPathsAgreeWithLibdbus(_ text: String) {
    #expect(ObjectPath.isValid(text) == Self.libdbusAccepts(text, dbus_validate_path))
  }

  @Test(arguments: busNames) func busNamesAgreeWithLibdbus(_ text: String) {
    #expect(BusName.isValid(text) == Self.libdbusAccepts(text, dbus_validate_bus_name))
  }

  @Test(arguments: interfaces) func interfaceAndErrorNamesAgreeWithLibdbus(_ text: String) {
    #expect(InterfaceName.isValid(text) == Self.libdbusAccepts(text, dbus_validate_interface))
    #expect(ErrorName.isValid(text) == Self.libdbusAccepts(text, dbus_validate_error_name))
  }

  @Test(arguments: members) func memberNamesAgreeWithLibdbus(_ text: String) {
    #expect(MemberName.isValid(text) == Self.libdbusAccepts(text, dbus_validate_member))
  }

  @Test(arguments: signatures) func signaturesAgreeWithLibdbus(_ text: String) {
    var error = CKeychainDBus.DBusError()
    dbus_error_init(&error)
    defer { dbus_error_free(&error) }
    #expect(Signature.isValid(text) == (dbus_signature_validate(text, &error) != 0))
  }

  /// The safety property: nothing we accept can make libdbus abort. The spec asks for two
  /// elements in a unique name; libdbus takes one, so there we are stricter, never laxer.
  @Test func uniqueNamesFollowTheSpecWhereLibdbusIsLaxer() {
    #expect(!BusName.isValid(":a"))
    #expect(Self.libdbusAccepts(":a", dbus_validate_bus_name))
  }

  @Test func signaturesParseIntoTypes() throws {
    #expect(
      try Signature("a{o(oayays)}v").types == [
        .dictionary(
          key: .objectPath, value: .structure([.objectPath, .array(.byte), .array(.byte), .string])),
        .variant,
      ])
    #expect(try Signature([.dictionary(key: .string, value: .variant)]) == "a{sv}")
  }

  @Test func invalidNamesThrowInvalidArgsWithoutEchoingTooMuch() {
    do {
      _ = try ObjectPath("/" + String(repeating: "x-", count: 200))
      Issue.record("an invalid path was accepted")
    } catch {
      #expect(error.name == .invalidArgs)
      #expect(error.message.count < 120)
    }
  }

  @Test func pathHelpers() throws {
    #expect(ObjectPath.escapeElement("Default keyring") == "Default_20keyring")
    #expect(ObjectPath.escapeElement("") == "_")
    #expect(try ObjectPath.root.appending("a").appending("b") == "/a/b")
    let path: ObjectPath = "/a/b/c"
    #expect(path.isDescendant(of: "/a/b"))
    #expect(!path.isDescendant(of: "/a/bc"))
    #expect(path.components == ["a", "b", "c"])
    #expect(ObjectPath.root.components.isEmpty)
    #expect(path.parent == "/a/b" && path.parent.parent.parent == .root)
    #expect(ObjectPath.root.parent == .root)
  }
}
