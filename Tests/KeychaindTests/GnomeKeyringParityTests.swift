// SPDX-License-Identifier: MIT
//
// gnome-keyring is the oracle: the same calls, made to gnome-keyring 42.1 and to keychaind in
// the same test, must get the same answer, error name and message alike. The few differences
// are listed with their reason.

import Foundation
import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

private let service: ObjectPath = "/org/freedesktop/secrets"
private let login: ObjectPath = "/org/freedesktop/secrets/collection/login"

/// One call of the table: where, what, with what (built from the provider's objects).
private struct ParityCall: Sendable {
  let name: String
  let make: @Sendable (Prepared) -> (ObjectPath, InterfaceName, MemberName, [DBusValue])
  var fromOther = false
}

@Suite(.enabled(if: GnomeKeyring.executable != nil)) struct GnomeKeyringParityTests {
  private static let item = SecretService.itemInterface
  private static let collection = SecretService.collectionInterface
  private static let serviceInterface = SecretService.serviceInterface
  private static let gnome = SecretService.gnomeInternalInterface

  private static var calls: [ParityCall] {
    let dh = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
    var calls: [ParityCall] = [
      // Objects that do not exist: UnknownMethod, which libsecret ignores when dismissing.
      .init(name: "GetSecret on a missing collection path") { p in
        (
          "/org/freedesktop/secrets/collection/nope", item,
          SecretService.ItemMethods.getSecret.name, [.objectPath(p.session)]
        )
      },
      .init(name: "Properties.Get on a missing item") { _ in
        (
          "/org/freedesktop/secrets/collection/login/9999", .properties, "Get",
          [.string(item.rawValue), .string("Label")]
        )
      },
      .init(name: "Delete on a missing alias") { _ in
        (
          "/org/freedesktop/secrets/aliases/nope", collection,
          SecretService.CollectionMethods.delete.name, []
        )
      },
      .init(name: "Close on a missing session") { _ in
        (
          "/org/freedesktop/secrets/session/nope", SecretService.sessionInterface,
          SecretService.SessionMethods.close.name, []
        )
      },
      .init(name: "Dismiss on a missing prompt") { _ in
        (
          "/org/freedesktop/secrets/prompt/nope", SecretService.promptInterface,
          SecretService.PromptMethods.dismiss.name, []
        )
      },
      .init(name: "a call under the service that names nothing") { p in
        (
          "/org/freedesktop/secrets/nothing/here", item, SecretService.ItemMethods.getSecret.name,
          [.objectPath(p.session)]
        )
      },
      .init(name: "Ping on a missing path") { _ in
        ("/org/freedesktop/secrets/collection/nope", .peer, "Ping", [])
      },
      // Methods, interfaces, signatures.
      .init(name: "an unknown method") { _ in (service, serviceInterface, "NoSuchMethod", []) },
      .init(name: "an unknown interface") { _ in (service, "org.example.Nope", "Foo", []) },
      .init(name: "an interface the object does not have") { p in
        (service, item, SecretService.ItemMethods.getSecret.name, [.objectPath(p.session)])
      },
      .init(name: "SearchItems with a string") { _ in
        (service, serviceInterface, SecretService.ServiceMethods.searchItems.name, [.string("app")])
      },
      // Sessions.
      .init(name: "OpenSession with an unknown algorithm") { _ in
        (
          service, serviceInterface, SecretService.ServiceMethods.openSession.name,
          [.string("nope"), .variant(.string(""))]
        )
      },
      .init(name: "OpenSession plain with a number") { _ in
        (
          service, serviceInterface, SecretService.ServiceMethods.openSession.name,
          [.string("plain"), .variant(.uint32(5))]
        )
      },
      .init(name: "OpenSession DH with a string") { _ in
        (
          service, serviceInterface, SecretService.ServiceMethods.openSession.name,
          [.string(dh), .variant(.string("abc"))]
        )
      },
      .init(name: "OpenSession DH with no key") { _ in
        (
          service, serviceInterface, SecretService.ServiceMethods.openSession.name,
          [.string(dh), .variant(.bytes([]))]
        )
      },
      .init(name: "GetSecret with a missing session") { p in
        (
          p.item, item, SecretService.ItemMethods.getSecret.name,
          [.objectPath("/org/freedesktop/secrets/session/nope")]
        )
      },
      .init(name: "GetSecret with another connection's session") { p in
        (p.item, item, SecretService.ItemMethods.getSecret.name, [.objectPath(p.foreignSession)])
      },
      .init(name: "GetSecrets with a missing session") { p in
        (
          service, serviceInterface, SecretService.ServiceMethods.getSecrets.name,
          [[p.item].dbusValue, .objectPath("/org/freedesktop/secrets/session/nope")]
        )
      },
      .init(name: "Close another connection's session") { p in
        (
          p.foreignSession, SecretService.sessionInterface, SecretService.SessionMethods.close.name,
          []
        )
      },
      // Creating.
      .init(name: "CreateCollection with an item's label") { _ in
        (
          service, serviceInterface, SecretService.ServiceMethods.createCollection.name,
          [[ItemProperties.label: DBusValue.string("x")].dbusValue, .string("")]
        )
      },
      .init(name: "CreateCollection with a numeric label") { _ in
        (
          service, serviceInterface, SecretService.ServiceMethods.createCollection.name,
          [[CollectionProperties.label: DBusValue.int32(5)].dbusValue, .string("")]
        )
      },
      .init(name: "CreateWithMasterPassword with an unknown property") { p in
        (
          service, gnome, SecretService.GnomeKeyringMethods.createWithMasterPassword.name,
          [
            ["org.example.Unknown": DBusValue.string("x")].dbusValue,
            Prepared.secret(p.session, "x"),
          ]
        )
      },
      .init(name: "CreateItem with an unknown property") { p in
        (
          login, collection, SecretService.CollectionMethods.createItem.name,
          [
            ["org.example.Unknown": DBusValue.string("x")].dbusValue,
            Prepared.secret(p.session, "x"), .boolean(false),
          ]
        )
      },
      .init(name: "CreateItem with a numeric label") { p in
        (
          login, collection, SecretService.CollectionMethods.createItem.name,
          [
            [ItemProperties.label: DBusValue.int32(5)].dbusValue, Prepared.secret(p.session, "x"),
            .boolean(false),
          ]
        )
      },
      .init(name: "CreateItem setting Locked") { p in
        (
          login, collection, SecretService.CollectionMethods.createItem.name,
          [
            ["org.freedesktop.Secret.Item.Locked": DBusValue.boolean(true)].dbusValue,
            Prepared.secret(p.session, "x"), .boolean(false),
          ]
        )
      },
      .init(name: "CreateItem with a missing session") { _ in
        (
          login, collection, SecretService.CollectionMethods.createItem.name,
          [
            [ItemProperties.label: DBusValue.string("x")].dbusValue,
            Prepared.secret("/org/freedesktop/secrets/session/nope", "x"), .boolean(false),
          ]
        )
      },
      .init(name: "CreateItem with another connection's session") { p in
        (
          login, collection, SecretService.CollectionMethods.createItem.name,
          [
            [ItemProperties.label: DBusValue.string("x")].dbusValue,
            Prepared.secret(p.foreignSession, "x"), .boolean(false),
          ]
        )
      },
    ]
    calls += [
      // Locked objects.
      .init(name: "CreateItem in a locked collection") { p in
        (
          p.parity, collection, SecretService.CollectionMethods.createItem.name,
          [
            [ItemProperties.label: DBusValue.string("x")].dbusValue,
            Prepared.secret(p.session, "x"), .boolean(true),
          ]
        )
      },
      .init(name: "GetSecret of a locked item") { p in
        (p.lockedItem, item, SecretService.ItemMethods.getSecret.name, [.objectPath(p.session)])
      },
      .init(name: "SetSecret of a locked item") { p in
        (
          p.lockedItem, item, SecretService.ItemMethods.setSecret.name,
          [Prepared.secret(p.session, "x")]
        )
      },
      .init(name: "Set the label of a locked item") { p in
        (
          p.lockedItem, .properties, "Set",
          [.string(item.rawValue), .string("Label"), .variant(.string("x"))]
        )
      },
      .init(name: "Delete a locked item") { p in
        (p.lockedItem, item, SecretService.ItemMethods.delete.name, [])
      },
      // Properties.
      .init(name: "Set a read-only property") { p in
        (
          p.item, .properties, "Set",
          [.string(item.rawValue), .string("Locked"), .variant(.boolean(true))]
        )
      },
      .init(name: "Set a label of the wrong type") { p in
        (
          p.item, .properties, "Set",
          [.string(item.rawValue), .string("Label"), .variant(.int32(5))]
        )
      },
      .init(name: "Set attributes of the wrong type") { p in
        (
          p.item, .properties, "Set",
          [.string(item.rawValue), .string("Attributes"), .variant(.string("x"))]
        )
      },
      .init(name: "Get an unknown property") { p in
        (p.item, .properties, "Get", [.string(item.rawValue), .string("NoSuchProp")])
      },
      .init(name: "Get from an unknown interface") { p in
        (p.item, .properties, "Get", [.string("org.example.Nope"), .string("x")])
      },
      .init(name: "GetAll of the empty interface name") { p in
        (p.item, .properties, "GetAll", [.string("")])
      },
      // Aliases, locking, passwords.
      .init(name: "ReadAlias of an unknown alias") { _ in
        (service, serviceInterface, SecretService.ServiceMethods.readAlias.name, [.string("nope")])
      },
      .init(name: "SetAlias to a missing collection") { _ in
        (
          service, serviceInterface, SecretService.ServiceMethods.setAlias.name,
          [.string("default"), .objectPath("/org/freedesktop/secrets/collection/nope")]
        )
      },
      .init(name: "SetAlias to a path that is not a collection's") { _ in
        (
          service, serviceInterface, SecretService.ServiceMethods.setAlias.name,
          [.string("default"), .objectPath("/org/freedesktop/secrets/nothing/here")]
        )
      },
      .init(name: "Unlock a missing collection") { _ in
        (
          service, serviceInterface, SecretService.ServiceMethods.unlock.name,
          [[ObjectPath("/org/freedesktop/secrets/collection/nope")].dbusValue]
        )
      },
      .init(name: "UnlockWithMasterPassword with a wrong password") { p in
        (
          service, gnome, SecretService.GnomeKeyringMethods.unlockWithMasterPassword.name,
          [.objectPath(p.parity), Prepared.secret(p.session, "wrong")]
        )
      },
      .init(name: "UnlockWithMasterPassword of a missing collection") { p in
        (
          service, gnome, SecretService.GnomeKeyringMethods.unlockWithMasterPassword.name,
          [
            .objectPath("/org/freedesktop/secrets/collection/nope"),
            Prepared.secret(p.session, "x"),
          ]
        )
      },
      .init(name: "ChangeWithMasterPassword with a wrong password") { p in
        (
          service, gnome, SecretService.GnomeKeyringMethods.changeWithMasterPassword.name,
          [
            .objectPath(login), Prepared.secret(p.session, "wrong"),
            Prepared.secret(p.session, "new"),
          ]
        )
      },
    ]
    return calls
  }

  @Test(.createsKeyringsProtectAsksAbout) func badCallsGetGnomeKeyringsAnswers() async throws {
    let gnome = try await GnomeKeyring()
    let daemon = try await DaemonProcess(password: Prepared.password)
    let theirs = try await Prepared(bus: gnome.bus)
    let ours = try await Prepared(bus: daemon.bus)
    var differences: [String] = []
    for call in Self.calls {
      let (path, interface, member, body) = call.make(theirs)
      let expected = await theirs.outcome(
        path, interface, member, body, from: call.fromOther ? theirs.other : nil)
      let (ourPath, ourInterface, ourMember, ourBody) = call.make(ours)
      let got = await ours.outcome(
        ourPath, ourInterface, ourMember, ourBody, from: call.fromOther ? ours.other : nil)
      if got != expected {
        differences.append("\(call.name):\n  gnome-keyring: \(expected)\n  keychaind:     \(got)")
      }
    }
    #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    // Each error answered is one its method's declaration lists.
    #expect(daemon.undeclaredErrors == [])
  }

  /// The differences README lists, as each provider answers them today: if either changes,
  /// the list must change with it.
  @Test(.createsKeyringsProtectAsksAbout) func theListedDifferencesAreWhatEachAnswers() async throws
  {
    let gnome = try await GnomeKeyring()
    let daemon = try await DaemonProcess(password: Prepared.password)
    func answers(_ prepared: Prepared) async throws -> [String] {
      // A prompt dismissed, then called again: gone in both, with different words.
      let unlock = try await prepared.client.callSecretService(
        service, Self.serviceInterface, SecretService.ServiceMethods.unlock.name,
        [[prepared.parity].dbusValue])
      let prompt = try #require(unlock[1].objectPath)
      _ = try await prepared.client.callSecretService(
        prompt, SecretService.promptInterface, SecretService.PromptMethods.dismiss.name, [])
      let again = await prepared.outcome(
        prompt, SecretService.promptInterface, SecretService.PromptMethods.dismiss.name, [])
      let alias = await prepared.outcome(
        service, Self.serviceInterface, SecretService.ServiceMethods.setAlias.name,
        [.string("work"), .objectPath(login)])
      // replace=true with fewer attributes than an existing item has.
      for (attributes, replace) in [(["acct": "bob", "site": "x"], false), (["site": "x"], true)] {
        _ = try await prepared.client.callSecretService(
          login, Self.collection, SecretService.CollectionMethods.createItem.name,
          [
            [
              ItemProperties.label: DBusValue.string("replace"),
              ItemProperties.attributes: attributes.dbusValue,
            ].dbusValue, Prepared.secret(prepared.session, "x"), .boolean(replace),
          ])
      }
      let found = try await prepared.client.callSecretService(
        service, Self.serviceInterface, SecretService.ServiceMethods.searchItems.name,
        [["site": "x"].dbusValue])
      guard case .array(_, let unlocked) = found[0] else { throw TestingError("SearchItems") }
      let items = unlocked.count
      return [
        again.replacingOccurrences(of: prompt.rawValue, with: "<prompt>"), alias,
        "\(items) item(s) after the replace",
      ]
    }
    let theirs = try await answers(try await Prepared(bus: gnome.bus))
    #expect(
      theirs == [
        "org.freedesktop.DBus.Error.UnknownMethod: "
          + "Method Dismiss is not implemented on interface org.freedesktop.Secret.Prompt",
        "org.freedesktop.DBus.Error.NotSupported: Only the 'default' alias is supported",
        "1 item(s) after the replace",
      ])
    let ours = try await answers(try await Prepared(bus: daemon.bus))
    #expect(
      ours == [
        "org.freedesktop.DBus.Error.UnknownMethod: Object does not exist at path “<prompt>”", "ok",
        "2 item(s) after the replace",
      ])
  }
}
