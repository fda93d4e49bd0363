// SPDX-License-Identifier: MIT
//
// The object tree in-process: sessions and prompts belong to their caller's connection.

import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

@Suite struct CallerStateTests {
  /// At the in-process depths, where the daemon's counts can be read.
  @Test(arguments: [ServiceFixture.Depth.inMemory, .privateBus])
  func sessionsAndPromptsDieWithTheirConnection(depth: ServiceFixture.Depth) async throws {
    let harness = try await ServiceFixture(depth)
    let daemon = try #require(harness.daemon)
    // A connection of its own, so that closing it is the caller leaving.
    let client = try await harness.newCaller()
    func call(_ member: MemberName, _ body: [DBusValue]) async throws -> [DBusValue] {
      try await harness.call(
        ServiceFixture.service, SecretService.serviceInterface, member, body, from: client)
    }
    _ = try await call(
      SecretService.ServiceMethods.openSession.name, [.string("plain"), .variant(.string(""))])
    _ = try await call(
      SecretService.ServiceMethods.createCollection.name,
      [[String: DBusValue]().dbusValue, .string("")])
    #expect(await daemon.callerStateCounts == (1, 1))
    await harness.leave(client)
    var counts = await daemon.callerStateCounts
    for _ in 0..<1500 where counts != (0, 0) {  // a bound, not a speed check
      try await Task.sleep(for: .milliseconds(20))
      counts = await daemon.callerStateCounts
    }
    #expect(counts == (0, 0))
  }
}

extension CallerStateTests {
  /// One connection cannot hold sessions or prompts without bound; another is not affected,
  /// and a closed session makes room again.
  @Test(arguments: ServiceFixture.Depth.allCases)
  func sessionsAndPromptsPerConnectionAreBounded(depth: ServiceFixture.Depth) async throws {
    let harness = try await ServiceFixture(depth)
    let greedy = try await harness.newCaller()
    var sessions: [ObjectPath] = []
    for _ in 0..<4096 { sessions.append(try await harness.openSession(from: greedy)) }
    do {
      _ = try await harness.openSession(from: greedy)
      Issue.record("a 4097th session was opened")
    } catch let error as DBusError {
      #expect(error.name == .limitsExceeded)
    }
    _ = try await harness.openSession()  // another connection
    _ = try await harness.call(
      sessions[0], SecretService.sessionInterface, SecretService.SessionMethods.close.name,
      from: greedy)
    _ = try await harness.openSession(from: greedy)

    for _ in 0..<64 {
      _ = try await harness.call(
        ServiceFixture.service, SecretService.serviceInterface,
        SecretService.ServiceMethods.createCollection.name,
        [[String: DBusValue]().dbusValue, .string("")], from: greedy)
    }
    do {
      _ = try await harness.call(
        ServiceFixture.service, SecretService.serviceInterface,
        SecretService.ServiceMethods.createCollection.name,
        [[String: DBusValue]().dbusValue, .string("")], from: greedy)
      Issue.record("a 65th pending prompt was accepted")
    } catch let error as DBusError {
      #expect(error.name == .limitsExceeded)
    }
  }
}
