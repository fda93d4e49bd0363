// SPDX-License-Identifier: MIT
//
// The object server's contract, in memory: an interface declared whole and served by a table
// that must match it; overloads (one name, several signatures) dispatched and introspected by
// signature, as KWallet's `org.kde.KWallet` needs; subtrees mounted at paths; filters around
// every call, in order.

import Synchronization
import Testing

@testable import KeychainDBus

@Suite struct InterfaceTableTests {
  static let name: InterfaceName = "org.example.Wallet"
  // KWallet's shape: `readPassword` with and without a folder.
  static let readOne = Takes<Int32, String, String>.Returns<String>(
    name, "read", ["handle", "key", "appid"], ["value"], errors: [])
  static let readInFolder = Takes<Int32, String, String, String>.Returns<String>(
    name, "read", ["handle", "folder", "key", "appid"], ["value"], errors: [])
  static let count = Property<UInt32>(name, "Count")
  static let title = Property<String>(name, "Title", .readwrite)
  static let interface = Interface(
    name, methods: [readOne, readInFolder], properties: [count, title])

  final class Wallet: DBusInterface, Sendable {
    let titleValue = Mutex("wallet")

    static let table = InterfaceTable<Wallet>(interface) { table in
      table.on(readOne, read)
      table.on(readInFolder, read)
      table.get(count) { _ in { _ in 7 } }
      table.get(title) { wallet in { _ in wallet.titleValue.withLock { $0 } } }
      table.set(title) { wallet in { _, value in wallet.titleValue.withLock { $0 = value } } }
    }

    func read(_ request: MethodRequest, handle: Int32, key: String, appID: String) async throws
      -> String
    { "\(key) of \(appID)" }

    func read(
      _ request: MethodRequest, handle: Int32, folder: String, key: String, appID: String
    ) async throws -> String { "\(folder)/\(key) of \(appID)" }
  }

  /// One object at `path`.
  struct Object: ObjectTree {
    let path: ObjectPath
    let object: Wallet
    nonisolated(nonsending) func interfaces(at path: ObjectPath) async throws
      -> [any DBusInterface]?
    {
      path == self.path ? [object] : nil
    }
    nonisolated(nonsending) func childNodes(of path: ObjectPath) async throws -> [String] { [] }
  }

  private func transport(filters: [any CallFilter] = []) -> InMemoryTransport {
    var tree = Mounts()
    tree.mount(Object(path: "/modules/kwalletd5", object: Wallet()), at: "/modules/kwalletd5")
    tree.mount(Object(path: "/modules/kwalletd6", object: Wallet()), at: "/modules/kwalletd6")
    tree.mount(at: "/org/example/One") { [Wallet()] }
    return InMemoryTransport(serving: ObjectServer(tree, filters: filters))
  }

  @Test func overloadsAreDispatchedByTheirSignature() async throws {
    let wallet = transport()
    let path: ObjectPath = "/modules/kwalletd5"
    #expect(try await wallet.call(path, Self.readOne, 1, "key", "app") == "key of app")
    #expect(
      try await wallet.call(path, Self.readInFolder, 1, "Passwords", "key", "app")
        == "Passwords/key of app")
    let wrong = await wallet.call(path, Self.name, "read", [.string("key")])
    #expect(wrong.errorName == .invalidArgs)
    #expect(
      wrong.body.first?.string
        == "Type of message, “(s)”, does not match expected type “(iss)” or “(isss)”")
  }

  @Test func overloadsAreIntrospectedAsBothVariants() async throws {
    let reply = await transport().call("/modules/kwalletd6", .introspectable, "Introspect")
    let xml = try #require(reply.body.first?.string)
    #expect(xml.components(separatedBy: "<method name=\"read\">").count == 3)
    #expect(xml.contains("<arg name=\"folder\" type=\"s\" direction=\"in\"/>"))
  }

  @Test func subtreesAreMountedAtTheirPathsAndTheWayDownIsListed() async throws {
    let tree = transport()
    func children(_ path: ObjectPath) async throws -> [String] {
      let xml = try #require(
        await tree.call(path, .introspectable, "Introspect").body.first?.string)
      return xml.split(separator: "\n").compactMap { line in
        guard line.hasPrefix(" <node name=\"") else { return nil }
        return String(line.dropFirst(13).dropLast(3))
      }
    }
    #expect(try await children("/") == ["modules", "org"])
    #expect(try await children("/modules") == ["kwalletd5", "kwalletd6"])
    #expect(try await children("/org/example") == ["One"])
    #expect(try await tree.call("/org/example/One", Self.readOne, 1, "k", "a") == "k of a")
    // Between and below the mounts there are no objects.
    for path: ObjectPath in ["/modules", "/org/example/One/below", "/modules/kwalletd7"] {
      let reply = await tree.call(path, Self.name, "read", [.int32(1), .string(""), .string("")])
      #expect(reply.errorName == .unknownMethod, "\(path)")
    }
  }

  @Test func propertiesAreTypedBothWays() async throws {
    let wallet = transport()
    let path: ObjectPath = "/modules/kwalletd5"
    let all = try await wallet.call(path, PropertiesMethods.getAll, Self.name.rawValue)
    #expect(all.entries.map(\.name) == ["Count", "Title"])
    #expect(all.dictionary == ["Count": .uint32(7), "Title": .string("wallet")])
    try await wallet.call(path, PropertiesMethods.set, Self.name.rawValue, "Title", .string("new"))
    #expect(
      try await wallet.call(path, PropertiesMethods.get, Self.name.rawValue, "Title")
        == .string("new"))
    do {
      try await wallet.call(path, PropertiesMethods.set, Self.name.rawValue, "Title", .uint32(1))
      Issue.record("a value of the wrong type was set")
    } catch {
      #expect(
        error.message
          == "Error setting property “Title”: Expected type “s” but got “u”")
    }
    do {
      try await wallet.call(path, PropertiesMethods.set, Self.name.rawValue, "Count", .uint32(1))
      Issue.record("a read-only property was set")
    } catch {
      #expect(error.message == "Property “Count” is not writable")
    }
  }

  final class Log: Sendable {
    let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    func take() -> [String] {
      entries.withLock { entries in
        defer { entries = [] }
        return entries
      }
    }
  }

  /// Records the order calls pass through it, and refuses calls of the four-argument `read`.
  struct Recorder: CallFilter {
    let label: String
    let log: Log

    nonisolated(nonsending) func filter(_ request: MethodRequest, next: CallFilterNext)
      async throws -> [DBusValue]
    {
      log.append("\(label) before")
      defer { log.append("\(label) after") }
      if label == "outer", request.message.body.count == 4 {
        throw DBusError(.accessDenied, "refused by a filter")
      }
      return try await next(request)
    }
  }

  @Test func filtersRunAroundEveryCallInOrder() async throws {
    let log = Log()
    let wallet = transport(filters: [
      Recorder(label: "outer", log: log), Recorder(label: "inner", log: log),
    ])
    _ = try await wallet.call("/modules/kwalletd5", Self.readOne, 1, "k", "a")
    #expect(log.take() == ["outer before", "inner before", "inner after", "outer after"])
    await #expect(throws: DBusError.self) {
      try await wallet.call("/modules/kwalletd5", Self.readInFolder, 1, "f", "k", "a")
    }
    #expect(log.take() == ["outer before", "outer after"])
  }

  @Test func aTableMustAnswerEveryDeclaredMember() async {
    await #expect(processExitsWith: .failure) {
      _ = InterfaceTable<Wallet>(InterfaceTableTests.interface) { table in
        table.on(InterfaceTableTests.readOne, Wallet.read)
        table.get(InterfaceTableTests.count) { _ in { _ in 7 } }
      }
    }
    await #expect(processExitsWith: .failure) {
      // Title is read-write: a getter alone does not serve it.
      _ = InterfaceTable<Wallet>(InterfaceTableTests.interface) { table in
        table.on(InterfaceTableTests.readOne, Wallet.read)
        table.on(InterfaceTableTests.readInFolder, Wallet.read)
        table.get(InterfaceTableTests.count) { _ in { _ in 7 } }
        table.get(InterfaceTableTests.title) { _ in { _ in "" } }
      }
    }
  }
}
