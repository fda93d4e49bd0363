// SPDX-License-Identifier: MIT
//
// One connection, several names: the daemon's objects answer under each name it owns (KWallet's
// clients will call org.kde.kwalletd5 on the same connection that owns org.freedesktop.secrets).

import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import KeychainTesting
import Logging
import SecretServiceProtocol
import SecretServiceServer
import Testing

@Suite struct BusNameTests {
  @Test func theSameObjectsAnswerUnderEveryNameTheDaemonOwns() async throws {
    let bus = try PrivateBus()
    let directory = try TemporaryDirectory(prefix: "bus-names")
    let store = try KeychainStore(directory: directory.path + "/store", kdf: .testing)
    try store.createCollection(name: "login", label: "Login", password: SecureBytes(copying: [1]))
    let daemon = SecretServiceDaemon(store: store, pinentry: nil, logger: Logger(label: "names"))
    let server = try await bus.connect()
    #expect(try await daemon.publish(on: server, replace: false) == .primaryOwner)
    let other: BusName = "org.example.AlsoSecrets"
    #expect(
      try await daemon.requestAdditionalNames([other], on: server, replace: false)
        == [.primaryOwner])
    let client = try await bus.connect()
    #expect(try await client.nameOwner(other) == server.uniqueName)
    for name in [SecretService.busName, other] {
      let collections = try await client.property(
        name, SecretPath.base, SecretService.ServiceProperty.collections)
      #expect(collections.contains("/org/freedesktop/secrets/collection/login"), "\(name)")
    }
  }
}
