// SPDX-License-Identifier: MIT
//
// Clients such as Seahorse and libsecret's proxies keep their views fresh from signals: every
// change must announce itself with the Secret Service signal and PropertiesChanged.

import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
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

  @Test func everyChangeIsSignalled() async throws {
    let harness = try await InProcessService()
    let watcher = try await harness.bus.connect()
    let signals = try await watcher.signals(
      matching: MatchRule(pathNamespace: "/org/freedesktop/secrets"))
    var received = signals.makeAsyncIterator()
    let login = InProcessService.login
    let session = try await harness.openSession()

    let secret = Secret(session: session, parameters: [], value: [1], contentType: "text/plain")
    let created = try await harness.call(
      login, "org.freedesktop.Secret.Collection", "CreateItem",
      [
        ["org.freedesktop.Secret.Item.Label": DBusValue.string("new")].dbusValue, secret.dbusValue,
        .boolean(false),
      ])
    let item = try #require(created[0].objectPath)
    _ = try await harness.call(
      item, .properties, "Set",
      [.string("org.freedesktop.Secret.Item"), .string("Label"), .variant(.string("renamed"))])
    _ = try await harness.call(item, "org.freedesktop.Secret.Item", "Delete")
    _ = try await harness.call(
      InProcessService.service, "org.freedesktop.Secret.Service", "Lock", [[login].dbusValue])

    let expected = [
      "ItemCreated \(login.rawValue) \(item.rawValue)",
      "PropertiesChanged \(login.rawValue) |Items",
      "PropertiesChanged \(item.rawValue) Label|Modified",
      "ItemChanged \(login.rawValue) \(item.rawValue)",
      "ItemDeleted \(login.rawValue) \(item.rawValue)",
      "PropertiesChanged \(login.rawValue) |Items",
      "PropertiesChanged \(login.rawValue) Locked|",
      "CollectionChanged /org/freedesktop/secrets \(login.rawValue)",
    ]
    var seen: [String] = []
    while seen.count < expected.count, let message = await received.next() {
      seen.append(describe(message))
    }
    #expect(seen == expected)
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
