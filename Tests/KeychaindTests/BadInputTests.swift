// SPDX-License-Identifier: MIT
//
// Every method of every interface with wrong argument types, unknown paths, locked objects,
// closed and foreign sessions, oversized values: each call gets the error name clients act on
// (gnome-keyring's, which libsecret tests for), and the daemon keeps serving and keeps its data.

import KeychainCrypto
import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

private let serviceInterface = SecretService.serviceInterface
private let collectionInterface = SecretService.collectionInterface
private let itemInterface = SecretService.itemInterface
private let gnome = SecretService.gnomeInternalInterface

/// One bad call and the error it must get.
private struct BadCall: CustomStringConvertible {
  let path: ObjectPath
  let interface: InterfaceName
  let member: MemberName
  let body: [DBusValue]
  let expected: ErrorName
  var description: String { "\(interface).\(member) at \(path) → \(expected.rawValue)" }
}

@Suite struct BadInputTests {
  private func secret(_ session: ObjectPath, _ bytes: [UInt8] = [7]) -> DBusValue {
    Secret(session: session, parameters: [], value: bytes, contentType: "text/plain").dbusValue
  }

  private func properties(_ entries: [String: DBusValue]) -> DBusValue {
    entries.dbusValue  // a{sv}: each value goes in a variant
  }

  @Test(.createsKeyringsProtectAsksAbout, arguments: ServiceFixture.Depth.allCases)
  func everyMethodRefusesBadInputByName(depth: ServiceFixture.Depth) async throws {
    let harness = try await ServiceFixture(depth)
    let service = ServiceFixture.service
    let login = ServiceFixture.login
    let item = harness.itemPath
    let mine = try await harness.openSession()
    let other = try await harness.newCaller()
    let foreign = try await harness.openSession(from: other)
    let closed = try await harness.openSession()
    _ = try await harness.call(
      closed, SecretService.sessionInterface, SecretService.SessionMethods.close.name)
    let missing: ObjectPath = "/org/freedesktop/secrets/collection/missing"
    let good = properties(["org.freedesktop.Secret.Item.Label": .string("l")])

    let invalid = ErrorName.invalidArgs
    let calls: [BadCall] = [
      // Service
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.openSession.name, body: [],
        expected: invalid),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.openSession.name,
        body: [.int32(1), .variant(.string(""))], expected: invalid),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.openSession.name,
        body: [.string("rot13"), .variant(.string(""))], expected: .notSupported),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.openSession.name,
        body: [.string("plain"), .variant(.uint32(3))], expected: invalid),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.openSession.name,
        body: [.string("dh-ietf1024-sha256-aes128-cbc-pkcs7"), .variant(.string("x"))],
        expected: invalid),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.createCollection.name,
        body: [.string("x"), .string("")], expected: invalid),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.createCollection.name,
        body: [properties(["org.freedesktop.Secret.Collection.Label": .int32(5)]), .string("")],
        expected: invalid),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.searchItems.name,
        body: [.string("app")], expected: invalid),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.unlock.name,
        body: [.string("/")], expected: invalid),
      .init(
        path: service, interface: serviceInterface, member: SecretService.ServiceMethods.lock.name,
        body: [], expected: invalid),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.getSecrets.name,
        body: [[item].dbusValue, .objectPath(foreign)], expected: .noSession),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.getSecrets.name,
        body: [[item].dbusValue, .objectPath(closed)], expected: .noSession),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.getSecrets.name,
        body: [.objectPath(item), .objectPath(mine)], expected: invalid),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.readAlias.name,
        body: [.uint32(0)], expected: invalid),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.setAlias.name,
        body: [.string("default"), .objectPath(missing)], expected: .noSuchObject),
      .init(
        path: service, interface: serviceInterface,
        member: SecretService.ServiceMethods.setAlias.name,
        body: [.string("session"), .objectPath(login)], expected: invalid),
      .init(
        path: service, interface: serviceInterface, member: "NoSuchMethod", body: [],
        expected: .unknownMethod),
      // Collection
      .init(
        path: missing, interface: collectionInterface,
        member: SecretService.CollectionMethods.delete.name, body: [],
        expected: .unknownMethod),
      .init(
        path: login, interface: collectionInterface,
        member: SecretService.CollectionMethods.searchItems.name,
        body: [[String: DBusValue]().dbusValue], expected: invalid),
      .init(
        path: login, interface: collectionInterface,
        member: SecretService.CollectionMethods.createItem.name,
        body: [good, secret(foreign), .boolean(false)], expected: .noSession),
      .init(
        path: login, interface: collectionInterface,
        member: SecretService.CollectionMethods.createItem.name,
        body: [good, secret(mine), .string("yes")], expected: invalid),
      .init(
        path: login, interface: collectionInterface,
        member: SecretService.CollectionMethods.createItem.name,
        body: [
          properties(["org.freedesktop.Secret.Item.Attributes": .string("a")]),
          secret(mine), .boolean(false),
        ], expected: invalid),
      .init(
        path: login, interface: collectionInterface,
        member: SecretService.CollectionMethods.createItem.name,
        body: [good, secret(mine, [UInt8](repeating: 1, count: 17 << 20)), .boolean(false)],
        expected: .limitsExceeded),
      .init(
        path: "/org/freedesktop/secrets/collection/session", interface: collectionInterface,
        member: SecretService.CollectionMethods.delete.name, body: [], expected: invalid),
      // Item
      .init(
        path: item, interface: itemInterface, member: SecretService.ItemMethods.getSecret.name,
        body: [.objectPath(foreign)], expected: .noSession),
      .init(
        path: item, interface: itemInterface, member: SecretService.ItemMethods.getSecret.name,
        body: [.string("/")], expected: invalid),
      .init(
        path: item, interface: itemInterface, member: SecretService.ItemMethods.setSecret.name,
        body: [secret(closed)], expected: .noSession),
      .init(
        path: item, interface: itemInterface, member: SecretService.ItemMethods.setSecret.name,
        body: [.string("secret")], expected: invalid),
      .init(
        path: "/org/freedesktop/secrets/collection/login/99999", interface: itemInterface,
        member: SecretService.ItemMethods.delete.name, body: [], expected: .unknownMethod),
      // Sessions and prompts of other connections
      .init(
        path: foreign, interface: SecretService.sessionInterface,
        member: SecretService.SessionMethods.close.name,
        body: [], expected: .accessDenied),
      .init(
        path: "/org/freedesktop/secrets/prompt/p999", interface: SecretService.promptInterface,
        member: SecretService.PromptMethods.prompt.name, body: [.string("")],
        expected: .unknownMethod),
      // gnome-keyring's extension
      .init(
        path: service, interface: gnome,
        member: SecretService.GnomeKeyringMethods.createWithMasterPassword.name,
        body: [properties([:]), secret(closed)], expected: .noSession),
      .init(
        path: service, interface: gnome,
        member: SecretService.GnomeKeyringMethods.unlockWithMasterPassword.name,
        body: [.objectPath(missing), secret(mine)], expected: .noSuchObject),
      .init(
        path: service, interface: gnome,
        member: SecretService.GnomeKeyringMethods.changeWithMasterPassword.name,
        body: [.objectPath(login), secret(mine, [9]), secret(mine, [8])],
        expected: .gnomeDenied),
      .init(
        path: service, interface: gnome,
        member: SecretService.GnomeKeyringMethods.changeWithPrompt.name,
        body: [.objectPath("/org/freedesktop/secrets/collection/session")],
        expected: .notSupported),
      .init(
        path: service, interface: gnome,
        member: SecretService.GnomeKeyringMethods.changeWithPrompt.name,
        body: [.string("login")], expected: invalid),
    ]
    for call in calls {
      do {
        _ = try await harness.call(call.path, call.interface, call.member, call.body)
        Issue.record("\(call): succeeded")
      } catch let error as DBusError {
        #expect(error.name == call.expected, "\(call): got \(error)")
      }
    }

    // Locked: item and collection refuse with IsLocked, nothing changes.
    _ = try await harness.call(
      service, serviceInterface, SecretService.ServiceMethods.lock.name, [[login].dbusValue])
    for (path, interface, member, body) in [
      (
        item, itemInterface, SecretService.ItemMethods.getSecret.name,
        [DBusValue.objectPath(mine)]
      ),
      (item, itemInterface, SecretService.ItemMethods.setSecret.name, [secret(mine)]),
      (
        login, collectionInterface, SecretService.CollectionMethods.createItem.name,
        [good, secret(mine), .boolean(true)]
      ),
    ] {
      await #expect(throws: DBusError.self) {
        do { _ = try await harness.call(path, interface, member, body) } catch let error
          as DBusError
        {
          #expect(error.name == .isLocked, "\(member): \(error)")
          throw error
        }
      }
    }
    // A wrong master password is Denied for a locked collection (an unlocked one, as with
    // gnome-keyring, takes any).
    await #expect(throws: DBusError.self) {
      do {
        _ = try await harness.call(
          service, gnome, SecretService.GnomeKeyringMethods.unlockWithMasterPassword.name,
          [.objectPath(login), secret(mine, [9, 9])])
      } catch let error as DBusError {
        #expect(error.name == .gnomeDenied, "\(error)")
        throw error
      }
    }
    // Still serving, and the one item is intact.
    try await harness.unlockLogin()
    let found = try await harness.call(
      service, serviceInterface, SecretService.ServiceMethods.searchItems.name,
      [["app": "demo"].dbusValue])
    #expect(found[0] == [item].dbusValue)
    #expect(try await harness.secret(of: item) == [2])
  }
}
