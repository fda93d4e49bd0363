// SPDX-License-Identifier: MIT
//
// The short form of the crash-safety harness (the full form: `swift run -c release
// keychain-crash`, 200 cycles with 16 writers).

import KeychainDBus
import KeychainTesting
import Testing

@Suite(.serialized) struct CrashSafetyTests {
  @Test func everyAcknowledgedWriteSurvivesSIGKILL() async throws {
    let report = try await CrashHarness(cycles: 4, writers: 4).run()
    #expect(report.cycles == 4)
    // The writers got replies before each kill, so there was something to lose.
    #expect(report.acknowledged > 0)
  }
}

extension CrashSafetyTests {
  /// The check can fail: an item deleted behind the writers' backs is reported as lost.
  @Test func theHarnessNoticesALostWrite() async throws {
    let error = await #expect(throws: TestingError.self) {
      _ = try await CrashHarness(cycles: 2, writers: 2).run(tamper: { connection in
        let reply = try await connection.call(
          .methodCall(
            destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
            interface: "org.freedesktop.Secret.Service", member: "SearchItems",
            body: [["writer": "0"].dbusValue]))
        let found = try [ObjectPath](dbusValue: reply.body[0])
        guard let victim = found.first else { return }
        _ = try await connection.call(
          .methodCall(
            destination: "org.freedesktop.secrets", path: victim,
            interface: "org.freedesktop.Secret.Item", member: "Delete"))
      })
    }
    #expect(error?.description.contains("found no item") == true, "\(String(describing: error))")
  }
}
