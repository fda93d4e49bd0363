// SPDX-License-Identifier: MIT
//
// The short form of the crash-safety harness (the full form: `swift run -c release
// keychain-crash`, 200 cycles with 16 writers).

import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
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
      // Four writers over four cycles: with two over three, one CI run in many had no settled
      // item at any tamper point, so nothing was deleted and nothing could be noticed.
      _ = try await CrashHarness(cycles: 4, writers: 4).run(tamper: { connection, settled in
        // An item whose creation (or last change) was acknowledged, deleted behind the
        // writers' backs: the harness must report it lost. (Every writer has a reply before
        // each kill, so only a writer whose one item is also its cut-off call leaves nothing.)
        guard let victim = settled.first else { return }
        _ = try await connection.call(
          .methodCall(
            destination: "org.freedesktop.secrets", path: victim,
            interface: SecretService.itemInterface, member: SecretService.ItemMethods.delete.name))
      })
    }
    #expect(error?.description.contains("found no item") == true, "\(String(describing: error))")
  }
}
