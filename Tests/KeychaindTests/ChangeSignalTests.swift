// SPDX-License-Identifier: MIT
//
// Clients such as Seahorse and libsecret's proxies keep their views fresh from signals: every
// change must announce itself with the Secret Service signal and PropertiesChanged.

import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Synchronization
import Testing

@Suite struct ChangeSignalTests {
  /// "member path [first argument]" for each signal, in order of arrival.
  private func describe(_ message: Message) -> String {
    var text = "\(message.member?.rawValue ?? "?") \(message.path?.rawValue ?? "?")"
    if message.member == "PropertiesChanged", message.body.count == 3 {
      let changed = (try? [String: DBusValue](dbusValue: message.body[1]))?.keys.sorted() ?? []
      let invalidated = (try? [String](dbusValue: message.body[2])) ?? []
      text += " \(changed.joined(separator: ","))|\(invalidated.joined(separator: ","))"
    } else if let object = message.body.first?.objectPath {
      text += " \(object.rawValue)"
    }
    return text
  }

  /// Signals received by a watcher, kept as they arrive.
  private final class Received: Sendable {
    private final class Box: Sendable {
      let messages = Mutex<[Message]>([])
    }
    private let box = Box()
    let task: Task<Void, Never>

    init(_ stream: AsyncStream<Message>) {
      let box = box
      task = Task { for await message in stream { box.messages.withLock { $0.append(message) } } }
    }

    /// The messages after the first `from`, once there are `count` of them (a 30 s bound).
    func next(_ count: Int, from: Int) async throws -> [Message] {
      for _ in 0..<1500 {
        let seen = box.messages.withLock { $0 }
        if seen.count >= from + count { return Array(seen[from..<(from + count)]) }
        try await Task.sleep(for: .milliseconds(20))
      }
      throw TestingError(
        "fewer than \(count) signals: \(box.messages.withLock { $0.count - from })")
    }
  }

  @Test func everyChangeIsSignalled() async throws {
    let harness = try await InProcessService()
    let watcher = try await harness.bus.connect()
    let received = Received(
      try await watcher.signals(matching: MatchRule(pathNamespace: "/org/freedesktop/secrets")))
    defer { received.task.cancel() }
    let login = InProcessService.login
    let session = try await harness.openSession()
    var seen: [String] = []
    var items: [[ObjectPath]] = []
    /// Makes a call, then takes the `count` signals that follow it.
    func step(_ count: Int, _ call: () async throws -> [DBusValue]) async throws -> [DBusValue] {
      let reply = try await call()
      for message in try await received.next(count, from: seen.count) {
        seen.append(describe(message))
        if message.member == "PropertiesChanged", message.body.count == 3,
          let value = try [String: DBusValue](dbusValue: message.body[1])["Items"]
        {
          items.append(try [ObjectPath](dbusValue: value))
        }
      }
      return reply
    }

    let secret = Secret(session: session, parameters: [], value: [1], contentType: "text/plain")
    let created = try await step(2) {
      try await harness.call(
        login, "org.freedesktop.Secret.Collection", "CreateItem",
        [
          ["org.freedesktop.Secret.Item.Label": DBusValue.string("new")].dbusValue,
          secret.dbusValue, .boolean(false),
        ])
    }
    let item = try #require(created[0].objectPath)
    _ = try await step(2) {
      try await harness.call(
        item, .properties, "Set",
        [.string("org.freedesktop.Secret.Item"), .string("Label"), .variant(.string("renamed"))])
    }
    _ = try await step(2) { try await harness.call(item, "org.freedesktop.Secret.Item", "Delete") }
    _ = try await step(4) {
      try await harness.call(
        InProcessService.service, "org.freedesktop.Secret.Service", "Lock", [[login].dbusValue])
    }

    // gnome-keyring 42.1's order: the Secret Service signal before the reply, PropertiesChanged
    // after it, always with the new value and nothing invalidated (libsecret drops an
    // invalidated property, and then crashes on the next ItemCreated or ItemDeleted).
    let first = InProcessService.login.rawValue + "/1"
    let expected = [
      "ItemCreated \(login.rawValue) \(item.rawValue)",
      "PropertiesChanged \(login.rawValue) Items|",
      "ItemChanged \(login.rawValue) \(item.rawValue)",
      "PropertiesChanged \(item.rawValue) Label|",
      "ItemDeleted \(login.rawValue) \(item.rawValue)",
      "PropertiesChanged \(login.rawValue) Items|",
      // A lock: every item, then the collection, then their new Locked.
      "ItemChanged \(login.rawValue) \(first)",
      "CollectionChanged /org/freedesktop/secrets \(login.rawValue)",
      "PropertiesChanged \(first) Locked|",
      "PropertiesChanged \(login.rawValue) Locked|",
    ]
    #expect(seen == expected)
    // Items is the whole list as it is after the change.
    let one = try ObjectPath(first)
    #expect(items.map(Set.init) == [[one, item], [one]], "\(items)")
  }
}

@Suite struct CollectionNamingTests {
  /// New collections get gnome-keyring's paths: the label with other characters as `_`,
  /// escaped, and a number when the name is taken.
  @Test func collectionsAreNamedAfterTheirLabel() async throws {
    let harness = try await InProcessService()
    let session = try await harness.openSession()
    let password = Secret(session: session, parameters: [], value: [1], contentType: "text/plain")
    var paths: [String] = []
    for label in ["Work stuff", "Work stuff", "", "Ünïcode"] {
      let reply = try await harness.call(
        InProcessService.service, "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
        "CreateWithMasterPassword",
        [
          ["org.freedesktop.Secret.Collection.Label": DBusValue.string(label)].dbusValue,
          password.dbusValue,
        ])
      paths.append(reply[0].objectPath?.rawValue ?? "")
    }
    let base = "/org/freedesktop/secrets/collection/"
    #expect(
      paths == [
        base + "Work_5fstuff", base + "Work_5fstuff2", base + "collection", base + "_5fn_5fcode",
      ])
  }
}
