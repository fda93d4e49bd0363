// SPDX-License-Identifier: MIT

import KeychainTesting
import Testing

@Suite struct LoadTests {
  /// 64 clients at once doing mixed operations, every result checked (see MixedLoad).
  @Test func sixtyFourConcurrentClientsGetExactlyTheirOwnResults() async throws {
    let daemon = try await DaemonProcess()
    let calls = try await MixedLoad(clients: 64, callsPerClient: 40).run(against: daemon)
    #expect(calls == 64 * 40)
    #expect(daemon.isRunning)
    _ = daemon.terminate()
  }
}
