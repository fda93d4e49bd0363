// SPDX-License-Identifier: MIT
//
// "A write that returned is on disk", checked on the real binary with the fault VFS: every kind
// of acknowledged change is synced before its reply, and a power cut, which loses whatever was
// written but not synced, loses no acknowledged write.

import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

@Suite struct DurabilityTests {
  private static let service: ObjectPath = "/org/freedesktop/secrets"
  private static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"

  /// Each change, made through the bus, is followed by at least one sync of the write-ahead log
  /// before its reply arrives.
  @Test(.createsKeyringsProtectAsksAbout) func everyAcknowledgedChangeIsSyncedBeforeItsReply()
    async throws
  {
    let vfs = try FaultVFS()
    let daemon = try await DaemonProcess(environment: vfs.environment)
    let client = try await daemon.bus.connect()
    let session = try await client.callSecretService(
      Self.service, SecretService.serviceInterface, SecretService.ServiceMethods.openSession.name,
      [.string("plain"), .variant(.string(""))])[1]
    func secret(_ text: String) -> DBusValue {
      Secret(
        session: session.objectPath!, parameters: [], value: Array(text.utf8),
        contentType: "text/plain"
      ).dbusValue
    }
    func property(_ interface: InterfaceName, _ name: String, _ value: DBusValue) -> [DBusValue] {
      [.string(interface.rawValue), .string(name), .variant(value)]
    }
    var unsynced: [String] = []
    func synced(_ change: String, _ body: () async throws -> [DBusValue]) async throws
      -> [DBusValue]
    {
      let before = vfs.syncs(of: "keychain.db-wal")
      let reply = try await body()
      if vfs.syncs(of: "keychain.db-wal") == before { unsynced.append(change) }
      return reply
    }

    let item = try await synced("CreateItem") {
      try await client.callSecretService(
        Self.login, SecretService.collectionInterface,
        SecretService.CollectionMethods.createItem.name,
        [
          [
            "org.freedesktop.Secret.Item.Label": DBusValue.string("durable"),
            "org.freedesktop.Secret.Item.Attributes": ["app": "durability"].dbusValue,
          ].dbusValue, secret("one"), .boolean(false),
        ])
    }[0].objectPath!
    _ = try await synced("SetSecret") {
      try await client.callSecretService(
        item, SecretService.itemInterface, SecretService.ItemMethods.setSecret.name, [secret("two")]
      )
    }
    _ = try await synced("Item.Label") {
      try await client.callSecretService(
        item, .properties, "Set", property(SecretService.itemInterface, "Label", .string("x")))
    }
    _ = try await synced("Item.Attributes") {
      try await client.callSecretService(
        item, .properties, "Set",
        property(SecretService.itemInterface, "Attributes", ["app": "moved"].dbusValue))
    }
    _ = try await synced("Item.Delete") {
      try await client.callSecretService(
        item, SecretService.itemInterface, SecretService.ItemMethods.delete.name)
    }
    let collection = try await synced("CreateWithMasterPassword") {
      try await client.callSecretService(
        Self.service, SecretService.gnomeInternalInterface,
        SecretService.GnomeKeyringMethods.createWithMasterPassword.name,
        [
          ["org.freedesktop.Secret.Collection.Label": DBusValue.string("Work")].dbusValue,
          secret("old"),
        ])
    }[0].objectPath!
    _ = try await synced("Collection.Label") {
      try await client.callSecretService(
        collection, .properties, "Set",
        property(SecretService.collectionInterface, "Label", .string("Office")))
    }
    _ = try await synced("SetAlias") {
      try await client.callSecretService(
        Self.service, SecretService.serviceInterface, SecretService.ServiceMethods.setAlias.name,
        [.string("office"), .objectPath(collection)])
    }
    _ = try await synced("ChangeWithMasterPassword") {
      try await client.callSecretService(
        Self.service, SecretService.gnomeInternalInterface,
        SecretService.GnomeKeyringMethods.changeWithMasterPassword.name,
        [.objectPath(collection), secret("old"), secret("new")])
    }
    _ = try await synced("Collection.Delete") {
      try await client.callSecretService(
        collection, SecretService.collectionInterface, SecretService.CollectionMethods.delete.name)
    }
    #expect(unsynced.isEmpty, "acknowledged before any sync: \(unsynced)")
    await client.close()
  }

  /// Writers under kill cycles where each kill is a power cut: the store files are put back to
  /// what their last syncs left, and every acknowledged write must still be there.
  @Test func everyAcknowledgedWriteSurvivesAPowerCut() async throws {
    let report = try await CrashHarness(cycles: 4, writers: 4, powerCut: true).run()
    #expect(report.cycles == 4)
    #expect(report.acknowledged > 0)
  }
}
