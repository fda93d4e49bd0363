// SPDX-License-Identifier: MIT
//
// A declared method's errors are part of its contract: the object server sends whatever error a
// handler throws, and logs the ones the declaration does not list, so that the tests that drive
// every method (the in-memory tree, the fuzzer) fail on a declaration that is out of date.

import KeychainDBus
import KeychainTesting
import Testing

@Suite struct DeclaredErrorTests {
  static let path: ObjectPath = "/test"
  static let interface: InterfaceName = "org.example.Declared"
  static let refuseMethod = Takes<String>.ReturnsNothing(
    interface, "Refuse", ["how"], errors: [.accessDenied])

  struct Declared: DBusInterface {
    static let table = InterfaceTable<Declared>(
      Interface(DeclaredErrorTests.interface, methods: [refuseMethod])
    ) {
      $0.on(refuseMethod, refuse)
    }

    func refuse(_ request: MethodRequest, how: String) async throws {
      switch how {
      case "declared": throw DBusError(.accessDenied, "no")
      case "everyMethod": throw DBusError(.invalidArgs, "bad")
      default: throw DBusError(.notSupported, "not declared")
      }
    }
  }

  struct Tree: ObjectTree {
    nonisolated(nonsending) func interfaces(at path: ObjectPath) async throws
      -> [any DBusInterface]?
    {
      path == DeclaredErrorTests.path ? [Declared()] : nil
    }
    nonisolated(nonsending) func childNodes(of path: ObjectPath) async throws -> [String] { [] }
  }

  /// The error name the call was answered with.
  private func answer(_ how: String, _ transport: InMemoryTransport) async -> ErrorName? {
    do {
      _ = try await transport.call(Self.path, Self.refuseMethod, how)
      return nil
    } catch {
      return error.name
    }
  }

  @Test func anUndeclaredErrorIsSentAndLogged() async {
    let log = CapturedLog()
    let transport = InMemoryTransport(
      serving: ObjectServer(Tree(), logger: log.logger(label: "declared")))
    #expect(await answer("declared", transport) == .accessDenied)
    #expect(await answer("everyMethod", transport) == .invalidArgs)
    #expect(log.undeclaredErrors == [])
    #expect(await answer("other", transport) == .notSupported)
    #expect(
      log.undeclaredErrors == [
        "error: org.example.Declared.Refuse answered org.freedesktop.DBus.Error.NotSupported, which its declaration does not list"
      ])
    #expect(Self.refuseMethod.errors == [.accessDenied])
  }
}
