// SPDX-License-Identifier: MIT
//
// The daemon's call filters, in memory: what a call used is recorded on its request by the
// store view, and the use-tracking filter turns it into "last used now" for the lock timers,
// once per call, whatever the method. Reads that found nothing, searches and refused reads
// are not uses.

import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainStore
import KeychainTesting
import SecretServiceProtocol
import Testing

@testable import KeychainDaemonCore
@testable import SecretServiceServer

@Suite struct CallFilterTests {
  static let service: ObjectPath = "/org/freedesktop/secrets"
  static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"

  final class Harness: Sendable {
    let login: LoginStore
    var store: KeychainStore { login.store }
    let daemon: SecretServiceDaemon
    let transport: InMemoryTransport

    init() throws {
      login = try LoginStore("call-filters")
      daemon = SecretServiceDaemon(
        store: login.store, pinentry: nil, logger: CapturedLog().logger(label: "call-filters"))
      transport = InMemoryTransport(serving: daemon.objectServer())
    }

    /// Whether `collection` has been used since the last `forget()`.
    func used(_ collection: String) -> Bool {
      daemon.core.locks.lastUse.withLock { $0[collection] != nil }
    }

    func forget() { daemon.core.locks.lastUse.withLock { $0 = [:] } }
  }

  @Test func readsAndWritesOfSecretsAreUsesAndNothingElseIs() async throws {
    let harness = try Harness()
    let session = try await harness.transport.call(
      Self.service, SecretService.ServiceMethods.openSession, "plain", .string("")
    ).1
    let secret = Secret(
      session: session, parameters: [], value: Array("s3cret".utf8), contentType: "text/plain")
    let item = try await harness.transport.call(
      Self.login, SecretService.CollectionMethods.createItem,
      [ItemProperties.attributes: ["app": "mail"].dbusValue], secret, false
    ).0
    #expect(harness.used("login"), "CreateItem wrote a secret")

    harness.forget()
    _ = try await harness.transport.call(
      Self.service, SecretService.ServiceMethods.searchItems, ["app": "mail"])
    _ = try await harness.transport.call(
      Self.service, SecretService.ServiceMethods.getSecrets, [try Self.login.appending("404")],
      session)
    #expect(!harness.used("login"), "a search and a read that found nothing are not uses")

    _ = try await harness.transport.call(
      Self.service, SecretService.ServiceMethods.getSecrets, [item], session)
    #expect(harness.used("login"))

    try harness.store.lock("login")
    harness.forget()
    await #expect(throws: DBusError.self) {
      try await harness.transport.call(item, SecretService.ItemMethods.getSecret, session)
    }
    #expect(!harness.used("login"), "a refused read is not a use")
  }
}
