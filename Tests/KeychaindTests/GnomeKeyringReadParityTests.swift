// SPDX-License-Identifier: MIT
//
// GetSecrets leaves out what it cannot read: an item that is locked, one that never existed,
// one deleted after it was read. keychaind learns that from the read itself, with no existence
// query first, and remembers the items it has seen exist, so a deleted one must be forgotten.
// gnome-keyring, asked the same, must give the same answers.

import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

@Suite(.enabled(if: GnomeKeyring.executable != nil)) struct GnomeKeyringReadParityTests {
  private static let service: ObjectPath = "/org/freedesktop/secrets"
  private static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"

  /// What GetSecrets returns for the item, the locked item, a deleted and a missing one, and
  /// what GetSecret on the deleted one answers, with the paths named by role.
  private static func answers(_ prepared: Prepared) async throws -> [String] {
    let client = prepared.client
    let deleted = try await Prepared.createItem(
      client, prepared.session, in: login, label: "deleted")
    // Read once, so that keychaind has seen it exist before it goes.
    _ = try await client.callSecretService(
      deleted, SecretService.ItemMethods.getSecret, prepared.session)
    _ = try await client.callSecretService(deleted, SecretService.ItemMethods.delete)
    let missing: ObjectPath = "/org/freedesktop/secrets/collection/login/9999"
    let roles = [
      prepared.item: "<item>", prepared.lockedItem: "<locked item>", deleted: "<deleted>",
      missing: "<missing>",
    ]
    let secrets = try await client.callSecretService(
      service, SecretService.ServiceMethods.getSecrets,
      [prepared.item, prepared.lockedItem, deleted, missing], prepared.session)
    let returned = secrets.keys.map { roles[$0] ?? $0.rawValue }.sorted()
    let afterDelete = await prepared.outcome(
      deleted, SecretService.itemInterface, SecretService.ItemMethods.getSecret.name,
      [.objectPath(prepared.session)])
    return [
      "GetSecrets returned \(returned.joined(separator: ", "))",
      afterDelete.replacingOccurrences(of: deleted.rawValue, with: "<deleted>"),
    ]
  }

  @Test(.createsKeyringsProtectAsksAbout)
  func getSecretsSkipsLockedMissingAndDeletedItemsAsGnomeKeyringDoes() async throws {
    let gnome = try await GnomeKeyring()
    let daemon = try await DaemonProcess(password: Prepared.password)
    let theirs = try await Self.answers(try await Prepared(bus: gnome.bus))
    let ours = try await Self.answers(try await Prepared(bus: daemon.bus))
    #expect(theirs.first == "GetSecrets returned <item>", "\(theirs)")
    #expect(ours == theirs)
  }
}
