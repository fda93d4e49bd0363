// SPDX-License-Identifier: MIT
//
// A caller's process start time, read from /proc/PID/stat: the command name in field 2 may
// hold spaces and parentheses, and a process that has gone has none. The in-memory transport
// answers what a test set for a sender, so per-caller rules can be tested with no bus.

import Foundation
import Testing

@testable import KeychainDBus

@Suite struct PeerCredentialsTests {
  @Test func theStartTimeIsCountedFromTheLastParenthesis() {
    let fields = (3...52).map { $0 == 22 ? "987654" : "\($0)" }.joined(separator: " ")
    #expect(PeerCredentials.startTime(fromStat: "4242 (a) b (c)) \(fields)\n") == 987_654)
    #expect(PeerCredentials.startTime(fromStat: "4242 (short) S 1 2") == nil)
    #expect(PeerCredentials.startTime(fromStat: "no parenthesis") == nil)
  }

  @Test func aProcessThatHasGoneHasNoStartTime() throws {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/bin/true")
    try child.run()
    child.waitUntilExit()
    #expect(PeerCredentials.startTime(ofProcess: UInt32(child.processIdentifier)) == nil)
    #expect(PeerCredentials.startTime(ofProcess: UInt32(getpid())) != nil)
  }

  @Test func theInMemoryTransportAnswersWhatTheTestSet() async throws {
    let transport = InMemoryTransport(serving: ObjectServer(Mounts()))
    let own = try await transport.credentials(of: ":1.1")
    #expect(own.uid == getuid() && own.pid == UInt32(getpid()) && own.processStartTime != nil)
    let other = PeerCredentials(uid: 1001, pid: 77, processStartTime: 5)
    transport.setCredentials(other, for: ":1.9")
    #expect(try await transport.credentials(of: ":1.9") == other)
  }
}
