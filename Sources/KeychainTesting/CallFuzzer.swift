// SPDX-License-Identifier: MIT
//
// Random calls to a Secret Service provider: every method the objects declare (read from their
// introspection, so nothing is forgotten) with arguments of the declared types but random
// values, or of random types; properties got, set and listed under random names; paths that
// exist, do not, or belong to another connection (its session, its prompt); big and deeply
// nested values. Seeded, so that a failure can be replayed.

import KeychainDBus

/// A small, seedable generator (SplitMix64): the same seed gives the same calls.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64
  public init(seed: UInt64) { state = seed }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// One method an object declares.
public struct DeclaredMethod: Sendable {
  public let path: ObjectPath
  public let interface: InterfaceName
  public let member: MemberName
  public let inputs: [DBusType]
}

public struct CallFuzzer: Sendable {
  private var random: SeededGenerator
  private let methods: [DeclaredMethod]
  private let paths: [ObjectPath]
  private let strings: [String]

  /// - Parameters:
  ///   - methods: what the objects declare (see `declaredMethods`).
  ///   - paths: object paths to use as targets and as arguments: existing, unknown, foreign.
  ///   - strings: words worth trying (names, algorithms, property names).
  public init(seed: UInt64, methods: [DeclaredMethod], paths: [ObjectPath], strings: [String]) {
    random = SeededGenerator(seed: seed)
    self.methods = methods
    self.paths = paths
    self.strings = strings
  }

  /// The methods declared by the objects at `paths`, from their `Introspect` answers.
  public static func declaredMethods(at paths: [ObjectPath], via connection: Connection)
    async throws -> [DeclaredMethod]
  {
    var found: [DeclaredMethod] = []
    for path in paths {
      let reply = try await connection.call(
        .methodCall(
          destination: "org.freedesktop.secrets", path: path, interface: .introspectable,
          member: "Introspect"))
      guard let xml = reply.body.first?.string else { continue }
      found += parse(xml, path: path)
    }
    return found
  }

  /// The methods of an introspection document (our own daemon writes it, one element a line).
  static func parse(_ xml: String, path: ObjectPath) -> [DeclaredMethod] {
    var found: [DeclaredMethod] = []
    var interface: InterfaceName?
    var method: (name: MemberName, inputs: [DBusType])?
    for line in xml.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
      if line.hasPrefix("<interface "), let name = attribute("name", line) {
        interface = InterfaceName(validating: name)
      } else if line.hasPrefix("<method "), let name = attribute("name", line) {
        method = MemberName(validating: name).map { ($0, []) }
      } else if line.hasPrefix("<arg "), method != nil, attribute("direction", line) == "in",
        let type = attribute("type", line)
      {
        method?.inputs += Signature(unchecked: type).types
      } else if line.hasPrefix("</method>"), let current = method, let interface {
        found.append(
          DeclaredMethod(
            path: path, interface: interface, member: current.name, inputs: current.inputs))
        method = nil
      }
    }
    return found
  }

  private static func attribute(_ name: String, _ line: String) -> String? {
    guard let start = line.range(of: name + "=\"") else { return nil }
    let rest = line[start.upperBound...]
    return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
  }

  /// The next call.
  public mutating func next() -> Message {
    let roll = Int.random(in: 0..<100, using: &random)
    let method = methods.randomElement(using: &random)!
    let path = roll < 80 ? method.path : paths.randomElement(using: &random)!
    if roll < 10 { return properties(at: path) }
    let body: [DBusValue]
    if roll < 65 {
      body = method.inputs.map { value(of: $0, depth: 0) }  // the declared types
    } else {
      body = (0..<Int.random(in: 0...3, using: &random)).map { _ in anyValue(depth: 0) }
    }
    return .methodCall(
      destination: "org.freedesktop.secrets", path: path, interface: method.interface,
      member: method.member, body: body)
  }

  private mutating func properties(at path: ObjectPath) -> Message {
    let interfaces = Set(methods.map(\.interface.rawValue)).sorted() + ["org.example.None", ""]
    let interface = DBusValue.string(interfaces.randomElement(using: &random)!)
    let name = DBusValue.string(string())
    let (member, body): (MemberName, [DBusValue]) =
      switch Int.random(in: 0..<3, using: &random) {
      case 0: ("Get", [interface, name])
      case 1: ("GetAll", [interface])
      default: ("Set", [interface, name, .variant(anyValue(depth: 1))])
      }
    return .methodCall(
      destination: "org.freedesktop.secrets", path: path, interface: .properties, member: member,
      body: body)
  }

  private mutating func string() -> String {
    switch Int.random(in: 0..<20, using: &random) {
    case 0: return ""
    case 1: return String(repeating: "x", count: Int.random(in: 1_000...200_000, using: &random))
    case 2...9: return strings.randomElement(using: &random)!
    default:
      let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789:._-/ é€🔑")
      return String(
        (0..<Int.random(in: 1...24, using: &random)).map { _ in
          letters.randomElement(using: &random)!
        })
    }
  }

  private mutating func bytes() -> [UInt8] {
    let count =
      Int.random(in: 0..<50, using: &random) == 0
      ? Int.random(in: 100_000...3_000_000, using: &random)
      : Int.random(in: 0...300, using: &random)
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
  }

  /// A random value of `type`.
  private mutating func value(of type: DBusType, depth: Int) -> DBusValue {
    switch type {
    case .byte: return .byte(.random(in: 0...255, using: &random))
    case .boolean: return .boolean(.random(using: &random))
    case .int16: return .int16(.random(in: .min ... .max, using: &random))
    case .uint16: return .uint16(.random(in: .min ... .max, using: &random))
    case .int32: return .int32(.random(in: .min ... .max, using: &random))
    case .uint32: return .uint32(.random(in: .min ... .max, using: &random))
    case .int64: return .int64(.random(in: .min ... .max, using: &random))
    case .uint64: return .uint64(.random(in: .min ... .max, using: &random))
    case .double: return .double(.random(in: -1e9...1e9, using: &random))
    case .string: return .string(string())
    case .objectPath: return .objectPath(paths.randomElement(using: &random)!)
    case .signature:
      return .signature(
        Signature(unchecked: ["", "s", "a{sv}", "(oayays)"].randomElement(using: &random)!))
    case .unixFD, .variant: return .variant(anyValue(depth: depth + 1))
    case .array(.byte): return .bytes(bytes())
    case .array(let element):
      let count = depth > 3 ? 0 : Int.random(in: 0...4, using: &random)
      return .array(element, (0..<count).map { _ in value(of: element, depth: depth + 1) })
    case .dictionary(let key, let valueType):
      let count = depth > 3 ? 0 : Int.random(in: 0...4, using: &random)
      return .dictionary(
        key: key, value: valueType,
        (0..<count).map { _ in
          DBusDictEntry(value(of: key, depth: depth + 1), value(of: valueType, depth: depth + 1))
        })
    case .structure(let fields): return .structure(fields.map { value(of: $0, depth: depth + 1) })
    }
  }

  /// A value of a random type; now and then nested as deep as D-Bus allows.
  private mutating func anyValue(depth: Int) -> DBusValue {
    if depth == 0, Int.random(in: 0..<40, using: &random) == 0 {
      var nested = DBusValue.string("deep")
      for _ in 0..<Int.random(in: 20...31, using: &random) {
        nested = .array(nested.type, [nested])
      }
      return nested
    }
    let basic: [DBusType] = [
      .byte, .boolean, .int32, .uint32, .int64, .double, .string, .objectPath,
    ]
    let shapes: [DBusType] = [
      .array(.string), .array(.objectPath), .array(.byte),
      .dictionary(key: .string, value: .variant),
      .dictionary(key: .string, value: .string),
      .structure([.objectPath, .array(.byte), .array(.byte), .string]),
    ]
    let type =
      depth > 2 || Bool.random(using: &random)
      ? basic.randomElement(using: &random)! : shapes.randomElement(using: &random)!
    return value(of: type, depth: depth)
  }
}
