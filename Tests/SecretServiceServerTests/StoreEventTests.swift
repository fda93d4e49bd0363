// SPDX-License-Identifier: MIT
//
// Changes as events, in memory: handlers record what they changed, and every API's announcer
// hears it once the call has succeeded, whichever API made the change. A second announcer
// (as KWallet's will be) hears the same events as the Secret Service's own; a call that fails
// announces nothing.

import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainStore
import KeychainTesting
import SecretServiceProtocol
import Synchronization
import Testing

@testable import KeychainDaemonCore
@testable import SecretServiceServer

@Suite struct StoreEventTests {
  static let service: ObjectPath = "/org/freedesktop/secrets"
  static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"

  /// Another API's announcer: what it heard, as text.
  final class Recorder: ChangeAnnouncer {
    let heard = Mutex<[String]>([])

    func announce(
      _ events: [StoreEvent], on connection: any MessageTransport, after request: MethodRequest?
    ) async {
      heard.withLock { heard in
        heard += events.map { event in
          switch event {
          case .itemCreated(let item): "created \(item.collection)/\(item.id)"
          case .itemChanged(let item, let properties):
            "changed \(item.collection)/\(item.id) \(properties.keys.sorted())"
          case .itemDeleted(let item, _): "deleted \(item.collection)/\(item.id)"
          case .lockChanged(let names, let changed, let locked):
            "\(locked ? "locked" : "unlocked") \(names) changed \(changed.sorted())"
          default: "\(event)"
          }
        }
      }
    }

    func take() -> [String] {
      heard.withLock { heard in
        defer { heard = [] }
        return heard
      }
    }
  }

  @Test func everyAnnouncerHearsWhatACallChangedOnceItSucceeded() async throws {
    let login = try LoginStore("store-events")
    let store = login.store
    let daemon = SecretServiceDaemon(
      store: store, pinentry: nil, logger: CapturedLog().logger(label: "store-events"))
    let recorder = Recorder()
    daemon.core.addAnnouncer(recorder)
    let tree = InMemoryTransport(serving: daemon.objectServer())

    let session = try await tree.call(
      Self.service, SecretService.ServiceMethods.openSession, "plain", .string("")
    ).1
    let secret = Secret(
      session: session, parameters: [], value: Array("s3cret".utf8), contentType: "text/plain")
    let item = try await tree.call(
      Self.login, SecretService.CollectionMethods.createItem, [:], secret, false
    ).0
    let id = try #require(item.rawValue.split(separator: "/").last)
    #expect(recorder.take() == ["created login/\(id)"])

    try await tree.call(
      item, PropertiesMethods.set, SecretService.itemInterface.rawValue, "Label", .string("new"))
    #expect(recorder.take() == ["changed login/\(id) [\"Label\"]"])

    _ = try await tree.call(Self.service, SecretService.ServiceMethods.lock, [Self.login])
    #expect(recorder.take() == ["locked [\"login\"] changed [\"login\"]"])

    // Refused (locked): nothing changed, nothing heard.
    await #expect(throws: DBusError.self) {
      try await tree.call(item, SecretService.ItemMethods.delete)
    }
    #expect(recorder.take() == [])

    // An unlock outside any call (PAM's, say) reaches every announcer too.
    try store.unlock("login", password: SecureBytes(copying: Array("pw".utf8)))
    await daemon.core.publish(StoreEvent.unlocked(["login"], changed: ["login"]), on: tree)
    #expect(recorder.take() == ["unlocked [\"login\"] changed [\"login\"]"])
    _ = try await tree.call(item, SecretService.ItemMethods.delete)
    #expect(recorder.take() == ["deleted login/\(id)"])
  }
}
