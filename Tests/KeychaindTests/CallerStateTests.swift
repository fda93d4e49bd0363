// SPDX-License-Identifier: MIT
//
// The object tree in-process: sessions and prompts belong to their caller's connection.

import KeychainDBus
import KeychainStore
import KeychainTesting
import Logging
import SecretServiceServer
import Testing

@Suite struct CallerStateTests {
  @Test func sessionsAndPromptsDieWithTheirConnection() async throws {
    let bus = try PrivateBus()
    let directory = try TemporaryDirectory(prefix: "caller-state")
    let store = try KeychainStore(directory: directory.path + "/store", kdf: .testing)
    let daemon = SecretServiceDaemon(store: store, logger: Logger(label: "test"))
    let server = try await bus.connect()
    #expect(try await daemon.publish(on: server, replace: false) == .primaryOwner)

    let client = try await bus.connect()
    let service: ObjectPath = "/org/freedesktop/secrets"
    func call(_ member: MemberName, _ body: [DBusValue]) async throws -> [DBusValue] {
      try await client.call(
        .methodCall(
          destination: "org.freedesktop.secrets", path: service,
          interface: "org.freedesktop.Secret.Service",
          member: member, body: body)
      ).body
    }
    _ = try await call("OpenSession", [.string("plain"), .variant(.string(""))])
    _ = try await call("CreateCollection", [[String: DBusValue]().dbusValue, .string("")])
    #expect(await daemon.callerStateCounts == (1, 1))
    await client.close()
    var counts = await daemon.callerStateCounts
    for _ in 0..<1500 where counts != (0, 0) {  // a bound, not a speed check
      try await Task.sleep(for: .milliseconds(20))
      counts = await daemon.callerStateCounts
    }
    #expect(counts == (0, 0))
  }
}
