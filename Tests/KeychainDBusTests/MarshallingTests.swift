// SPDX-License-Identifier: MIT
//
// Round trips through libdbus's own wire format, without a bus.

import KeychainDBus
import Testing

/// Marshals `body` in a method call and reads it back.
private func roundTrip(_ body: [DBusValue]) throws -> [DBusValue] {
  let call = Message.methodCall(
    destination: "org.example.Test", path: "/org/example", interface: "org.example.Test",
    member: "Echo", body: body)
  return try WireFormat.demarshal(try WireFormat.marshal(call)).body
}

@Suite struct MarshallingTests {
  static let basics: [DBusValue] = [
    .byte(0), .byte(255), .boolean(true), .boolean(false),
    .int16(.min), .int16(.max), .uint16(.max), .int32(.min), .int32(.max), .uint32(.max),
    .int64(.min), .int64(.max), .uint64(.max), .double(-0.5), .double(1e300),
    .string(""), .string("ascii"), .string("ünïcødé ✓ 𝄞"), .objectPath("/"),
    .objectPath("/org/freedesktop/secrets/collection/login/7"), .signature(""),
    .signature("a{sv}(oayays)"),
  ]

  @Test(arguments: basics)
  func everyBasicTypeRoundTrips(_ value: DBusValue) throws {
    #expect(try roundTrip([value]) == [value])
  }

  @Test func byteArraysRoundTripEmptySmallAndLarge() throws {
    let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let body: [DBusValue] = [.bytes([]), .bytes([0, 1, 255]), .bytes(big)]
    #expect(try roundTrip(body) == body)
    // The element-wise spelling of `ay` decodes to the compact one.
    #expect(try roundTrip([.array(.byte, [.byte(1), .byte(2)])]) == [.bytes([1, 2])])
  }

  @Test func containersNestAndKeepOrder() throws {
    let secret = DBusValue.structure([
      .objectPath("/org/freedesktop/secrets/session/1"), .bytes([1, 2]), .bytes([3]),
      .string("text/plain"),
    ])
    let body: [DBusValue] = [
      ["b": "2", "a": "1"].dbusValue,
      .dictionary(
        key: .string, value: .variant,
        [
          DBusDictEntry(.string("Label"), .variant(.string("x"))),
          DBusDictEntry(.string("Nested"), .variant(.variant(.array(.int32, [.int32(1)])))),
        ]),
      .array(.objectPath, [.objectPath("/a"), .objectPath("/b")]),
      .dictionary(key: .objectPath, value: secret.type, [DBusDictEntry(.objectPath("/i"), secret)]),
      .array(.array(.string), [.array(.string, []), .array(.string, [.string("z")])]),
      .array(.dictionary(key: .string, value: .string), []),
      .dictionary(key: .uint32, value: .structure([.boolean, .double]), []),
      .variant(.structure([.int64(5), .structure([.string("deep")])])),
    ]
    #expect(try roundTrip(body) == body)
    // The server's type check, which builds no type, agrees with comparing the built types.
    let values = Self.basics + body + [.bytes([1]), .array(.byte, []), .structure([])]
    for value in values {
      for other in values {
        #expect(value.hasType(other.type) == (value.type == other.type), "\(value) \(other)")
      }
    }
  }

  @Test func largeArraysOfContainersRoundTrip() throws {
    let entries = (0..<20_000).map { DBusDictEntry(.string("key\($0)"), .string("v\($0)")) }
    let body: [DBusValue] = [
      .dictionary(key: .string, value: .string, entries),
      .array(.objectPath, (0..<5_000).map { .objectPath(try! ObjectPath("/o/n\($0)")) }),
    ]
    #expect(try roundTrip(body) == body)
  }

  @Test func nestingUpToTheLimitsIsAccepted() throws {
    var arrays = DBusValue.int32(1)
    for _ in 0..<32 { arrays = .array(arrays.type, [arrays]) }
    var structs = DBusValue.int32(1)
    for _ in 0..<32 { structs = .structure([structs]) }
    var variants = DBusValue.int32(1)
    for _ in 0..<63 { variants = .variant(variants) }
    #expect(try roundTrip([arrays]) == [arrays])
    #expect(try roundTrip([structs]) == [structs])
    #expect(try roundTrip([variants]) == [variants])
  }

  @Test func typedConversionsForSecretServiceShapes() throws {
    let attributes = ["xdg:schema": "org.example.Password", "user": "ädmin"]
    #expect(try [String: String](dbusValue: try roundTrip([attributes.dbusValue])[0]) == attributes)
    let properties: [String: DBusValue] = [
      "org.freedesktop.Secret.Item.Label": .string("L"),
      "org.freedesktop.Secret.Item.Attributes": attributes.dbusValue,
    ]
    #expect(
      try [String: DBusValue](dbusValue: try roundTrip([properties.dbusValue])[0]) == properties)
    let paths: [ObjectPath] = ["/a", "/a/b"]
    #expect(try [ObjectPath](dbusValue: try roundTrip([paths.dbusValue])[0]) == paths)
    #expect(try [UInt8](dbusValue: .bytes([9])) == [9])
    // Empty arrays keep their element type (an empty [ObjectPath] once became `ay`).
    #expect([ObjectPath]().dbusValue == .array(.objectPath, []))
    #expect([String]().dbusValue.type == .array(.string))
    #expect([UInt8]().dbusValue == .bytes([]))
    #expect(try DBusValue(dbusValue: .variant(.uint64(3))) == .uint64(3))
    #expect(throws: DBusError.self) { try [String: String](dbusValue: properties.dbusValue) }
    #expect(throws: DBusError.self) { try String(dbusValue: .int32(1)) }
  }

  @Test func headersRoundTrip() throws {
    var call = Message.methodCall(
      destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
      interface: "org.freedesktop.Secret.Service", member: "OpenSession",
      body: [.string("plain"), .variant(.string(""))])
    call.serial = 77
    call.noReplyExpected = true
    let back = try WireFormat.demarshal(try WireFormat.marshal(call))
    #expect(back.kind == .methodCall)
    #expect(back.path == call.path && back.interface == call.interface)
    #expect(back.member == call.member && back.destination == call.destination)
    #expect(back.serial == 77 && back.noReplyExpected)
    #expect(back.signature == "sv")

    var error = call.makeErrorReply(DBusError(.notSupported, "no such algorithm"))
    error.destination = nil
    let errorBack = try WireFormat.demarshal(try WireFormat.marshal(error))
    #expect(errorBack.error == DBusError(.notSupported, "no such algorithm"))
    #expect(errorBack.replySerial == 77)
  }
}

@Suite struct InvalidInputTests {
  /// Each of these would abort the process inside libdbus if it got that far.
  static let refused: [(String, [DBusValue])] = [
    ("NUL in a string", [.string("a\u{0}b")]),
    ("NUL in a nested string", [.variant(.array(.string, [.string("\u{0}")]))]),
    ("array element of another type", [.array(.string, [.string("a"), .int32(1)])]),
    (
      "dictionary entry of another type",
      [
        .dictionary(
          key: .string, value: .string,
          [
            DBusDictEntry(.string("k"), .int32(1))
          ])
      ]
    ),
    ("non-basic dictionary key", [.dictionary(key: .variant, value: .string, [])]),
    ("empty structure", [.structure([])]),
    (
      "33 nested arrays",
      [
        (0..<33).reduce(DBusValue.int32(1)) { v, _ in .array(v.type, [v]) }
      ]
    ),
    ("33 nested structures", [(0..<33).reduce(DBusValue.int32(1)) { v, _ in .structure([v]) }]),
    ("65 nested variants", [(0..<65).reduce(DBusValue.int32(1)) { v, _ in .variant(v) }]),
    ("signature over 255 bytes", Array(repeating: .int32(1), count: 256)),
    ("array over 64 MiB", [.bytes([UInt8](repeating: 0, count: (64 << 20) + 1))]),
  ]

  @Test(arguments: refused.indices)
  func invalidBodiesAreRefusedWithAnError(_ index: Int) {
    let (what, body) = Self.refused[index]
    let message = Message.methodCall(
      destination: nil, path: "/", interface: nil, member: "M", body: body)
    #expect(throws: DBusError.self, "\(what)") { try WireFormat.marshal(message) }
  }

  @Test func incompleteHeadersAreRefused() {
    #expect(throws: DBusError.self) { try WireFormat.marshal(Message(kind: .methodCall)) }
    #expect(throws: DBusError.self) { try WireFormat.marshal(Message(kind: .signal)) }
    #expect(throws: DBusError.self) { try WireFormat.marshal(Message(kind: .error)) }
  }

  @Test func garbageOnTheWireIsRefused() throws {
    #expect(throws: DBusError.self) { try WireFormat.demarshal([]) }
    #expect(throws: DBusError.self) { try WireFormat.demarshal(Array("not dbus".utf8)) }
    var bytes = try WireFormat.marshal(
      .methodCall(destination: nil, path: "/", interface: nil, member: "M", body: [.string("x")]))
    bytes[bytes.count - 2] = 0xFF  // breaks the string's UTF-8
    #expect(throws: DBusError.self) { try WireFormat.demarshal(bytes) }
  }
}
