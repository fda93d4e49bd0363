// SPDX-License-Identifier: MIT
//
// Careless and hostile clients against the real daemon: one that leaves in the middle of a
// call, oversized items, and a flood of calls. The daemon answers what it can with a named
// error, keeps serving others, and its memory does not grow with the number of calls.

import Foundation
import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

@Suite struct HostileClientTests {
  private func createItem(_ session: ObjectPath, attributes: [String: String], secret: [UInt8])
    -> Message
  {
    .methodCall(
      destination: SecretService.busName, path: "/org/freedesktop/secrets/aliases/default",
      interface: SecretService.collectionInterface,
      member: SecretService.CollectionMethods.createItem.name,
      body: [
        ["org.freedesktop.Secret.Item.Attributes": attributes.dbusValue].dbusValue,
        Secret(session: session, parameters: [], value: secret, contentType: "text/plain")
          .dbusValue, .boolean(true),
      ])
  }

  private func openSession(_ connection: Connection) async throws -> ObjectPath {
    try await connection.call(
      .methodCall(
        destination: SecretService.busName, path: "/org/freedesktop/secrets",
        interface: SecretService.serviceInterface,
        member: SecretService.ServiceMethods.openSession.name,
        body: [.string("plain"), .variant(.string(""))])
    ).body[1].objectPath!
  }

  private func residentKiB(_ daemon: DaemonProcess) async throws -> Int {
    let connection = try await daemon.bus.connect()
    let pid = try #require(try await connection.credentials(of: SecretService.busName).pid)
    await connection.close()
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
  }

  @Test func oversizedItemsGetNamedErrorsAndLeavingMidCallHarmsNobody() async throws {
    let daemon = try await DaemonProcess()
    let client = try await daemon.bus.connect()
    let session = try await openSession(client)
    // 10,000 attributes: over the limit, refused by name.
    let many = Dictionary(uniqueKeysWithValues: (0..<10_000).map { ("a\($0)", "v\($0)") })
    let refused = await #expect(throws: DBusError.self) {
      try await client.call(createItem(session, attributes: many, secret: [1]))
    }
    #expect(refused?.name == .limitsExceeded)
    // A 10 MiB secret is within the limit and comes back whole.
    let big = [UInt8](repeating: 0x5a, count: 10 << 20)
    _ = try await client.call(createItem(session, attributes: ["big": "1"], secret: big))
    // A client that sends a big call and leaves without waiting for the answer.
    let leaver = try await daemon.bus.connect()
    let leaverSession = try await openSession(leaver)
    _ = try await leaver.send(createItem(leaverSession, attributes: ["left": "1"], secret: big))
    await leaver.close()
    // Everyone else is still served, and the big secret is intact.
    let found = try await client.call(
      .methodCall(
        destination: SecretService.busName, path: "/org/freedesktop/secrets",
        interface: SecretService.serviceInterface,
        member: SecretService.ServiceMethods.searchItems.name,
        body: [["big": "1"].dbusValue]))
    let item = try #require(try [ObjectPath](dbusValue: found.body[0]).first)
    let secret = try Secret(
      dbusValue: try await client.call(
        .methodCall(
          destination: SecretService.busName, path: item, interface: SecretService.itemInterface,
          member: SecretService.ItemMethods.getSecret.name, body: [.objectPath(session)])
      ).body[0])
    #expect(secret.value == big)
    #expect(daemon.isRunning)
    _ = daemon.terminate()
  }

  @Test(.disabled(if: Binaries.isSanitized, "the sanitizers' allocator keeps freed memory"))
  func aFloodOfCallsDoesNotGrowMemory() async throws {
    let daemon = try await DaemonProcess()
    let flood: @Sendable (Connection) async throws -> Void = { connection in
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<4_000 {
          group.addTask {
            _ = try? await connection.call(
              .methodCall(
                destination: SecretService.busName, path: "/org/freedesktop/secrets",
                interface: SecretService.serviceInterface,
                member: SecretService.ServiceMethods.searchItems.name,
                body: [["flood": String(index)].dbusValue]))
          }
        }
        try await group.waitForAll()
      }
    }
    // The first flood warms every cache and pool; a leak shows as growth over the next two.
    let client = try await daemon.bus.connect()
    try await flood(client)
    let warmed = try await residentKiB(daemon)
    try await flood(client)
    try await flood(client)
    let after = try await residentKiB(daemon)
    #expect(after - warmed < 8 * 1024, "grew from \(warmed) to \(after) KiB over 8,000 calls")
    #expect(daemon.isRunning)
    _ = daemon.terminate()
  }

  /// A client that writes a SearchItems call whose attribute value is not UTF-8, straight onto
  /// its socket (libdbus and our encoder refuse to build one). The bus validates messages, so
  /// the call never reaches keychaind: the client is cut off and everyone else is served.
  @Test func invalidUTF8NeverReachesTheDaemon() async throws {
    let daemon = try await DaemonProcess()
    let script = """
      import sys
      from jeepney import new_method_call, DBusAddress, HeaderFields
      from jeepney.io.blocking import open_dbus_connection
      conn = open_dbus_connection(bus='SESSION')
      service = DBusAddress('/org/freedesktop/secrets', bus_name='org.freedesktop.secrets',
                            interface='org.freedesktop.Secret.Service')
      message = new_method_call(service, 'SearchItems', 'a{ss}', ({'k': 'XVALUEX'},))
      data = bytes(message.serialise(serial=99)).replace(b'XVALUEX', b'X\\xff\\xfeLUEX')
      conn.sock.sendall(data)
      try:
          while True:
              reply = conn.receive(timeout=10)
              if reply.header.fields.get(HeaderFields.reply_serial) == 99:
                  print('answered', reply.header.message_type, reply.body)
                  break
      except Exception as error:
          print('cut off', type(error).__name__)
      """
    let result = try daemon.run("/usr/bin/python3", ["-c", script])
    #expect(result.stdout.contains("cut off"), "\(result.stdout) \(result.stderr)")
    #expect(daemon.isRunning)
    let stored = try daemon.run(
      "secret-tool", ["store", "--label=after", "k", "v"], stdin: Array("fine".utf8))
    #expect(stored.status == 0)
    #expect(try daemon.run("secret-tool", ["lookup", "k", "v"]).stdout == "fine")
    _ = daemon.terminate()
  }
}
