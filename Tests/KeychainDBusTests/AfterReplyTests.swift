// SPDX-License-Identifier: MIT
//
// Work a handler leaves for after its reply often holds the request it was given (the daemon's
// change signals do). The object server must let go of that work once it has run, or once the
// call failed, or every such call stays in memory for good: it did, 2.4 KB for each item a
// client created or deleted.

import Synchronization
import Testing

@testable import KeychainDBus

@Suite struct AfterReplyTests {
  static let path: ObjectPath = "/test"
  static let interface: InterfaceName = "org.example.AfterReply"
  static let probeMethod = Takes<Bool>.ReturnsNothing(
    interface, "Probe", ["fail"], errors: [.accessDenied])

  /// What the handler saw: its request's after-reply work, weakly, and whether that work ran.
  final class Seen: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `actions` is set by the handler before the reply and
    // read by the test after it.
    weak var actions: CallContext?
    let ran = Mutex(false)
  }

  struct Probe: DBusInterface {
    let seen: Seen
    static let table = InterfaceTable<Probe>(
      Interface(AfterReplyTests.interface, methods: [probeMethod])
    ) {
      $0.on(probeMethod, probe)
    }

    func probe(_ request: MethodRequest, fail: Bool) async throws {
      seen.actions = request.context
      // As ChangeSignals does: the work holds the request.
      request.afterReply { [seen] in
        _ = request.message
        seen.ran.withLock { $0 = true }
      }
      if fail { throw DBusError(.accessDenied, "refused") }
    }
  }

  struct Tree: ObjectTree {
    let seen: Seen
    nonisolated(nonsending) func interfaces(at path: ObjectPath) async throws
      -> [any DBusInterface]?
    {
      path == AfterReplyTests.path ? [Probe(seen: seen)] : nil
    }
    nonisolated(nonsending) func childNodes(of path: ObjectPath) async throws -> [String] { [] }
  }

  @Test(arguments: [false, true])
  func theRequestIsFreedOnceItsWorkHasRunOrTheCallFailed(fail: Bool) async throws {
    let seen = Seen()
    let transport = InMemoryTransport(serving: ObjectServer(Tree(seen: seen)))
    let reply = await transport.call(
      Self.path, Self.interface, Self.probeMethod.name, [.boolean(fail)])
    #expect((reply.kind == .methodReturn) == !fail)
    // The work runs in a task of its own after the reply: wait for it (a bound, not a timing).
    for _ in 0..<500 where seen.actions != nil || (!fail && !seen.ran.withLock({ $0 })) {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(seen.ran.withLock { $0 } == !fail)
    #expect(seen.actions == nil, "the request and its after-reply work are still alive")
  }
}
