// SPDX-License-Identifier: MIT
//
// The access recipes of `protect` through the whole Secret Service tree, in memory: the
// daemon's object server behind an InMemoryTransport, two programs made up as kernel facts
// (`FakeSystem`) and named to the daemon by their connections' credentials, as the bus would.
// What needs a real process (the identity of a real secret-tool, the dialog, a restart) is
// tested on the binary (`AccessControlTests`); here, in milliseconds, the rules: who finds an
// item locked, who may read or replace it, and what the audit log says of each.

import Foundation
import KeychainAccess
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import KeychainTesting
import SecretServiceProtocol
import SecretServiceServer
import Testing

@Suite struct AccessInMemoryTests {
  static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"
  static let service: ObjectPath = "/org/freedesktop/secrets"
  /// Two programs of the user: Mail, which stores its password, and Tool, another program.
  static let mail = BusName(":1.10")
  static let tool = BusName(":1.11")

  final class Harness: Sendable {
    let login: LoginStore
    let daemon: SecretServiceDaemon
    let transport: InMemoryTransport
    var auditPath: String { login.directory.path + "/state/audit.jsonl" }

    init(_ mode: AccessMode = .protect) throws {
      login = try LoginStore("access-in-memory")
      let system = FakeSystem()
      // The user's own programs (of the uid this test runs as), each behind one connection.
      var pids: [BusName: UInt32] = [:]
      for (name, program) in [(AccessInMemoryTests.mail, "/usr/bin/mail"), (tool, "/usr/bin/tool")]
      {
        system.file(program)
        pids[name] = system.process(program, uid: getuid())
      }
      daemon = SecretServiceDaemon(
        store: login.store, pinentry: nil,
        logger: CapturedLog().logger(label: "access-in-memory"),
        access: AccessSettings(
          mode: mode, auditDirectory: login.directory.path + "/state", notify: false,
          facts: system))
      transport = InMemoryTransport(serving: daemon.objectServer())
      for (name, pid) in pids {
        transport.setCredentials(
          PeerCredentials(uid: getuid(), pid: pid, processStartTime: 1000), for: name)
      }
    }

    func session(of caller: BusName) async throws -> ObjectPath {
      try await transport.call(
        AccessInMemoryTests.service, SecretService.ServiceMethods.openSession, "plain",
        .string(""), from: caller
      ).1
    }

    /// CreateItem of `caller`, replacing an item with the same attributes.
    func store(_ secret: String, by caller: BusName) async throws -> ObjectPath {
      let properties: [String: DBusValue] = [
        ItemProperties.label: .string("Mail password"),
        ItemProperties.attributes: ["service": "mail"].dbusValue,
      ]
      let value = Secret(
        session: try await session(of: caller), parameters: [], value: Array(secret.utf8),
        contentType: "text/plain")
      return try await transport.call(
        AccessInMemoryTests.login, SecretService.CollectionMethods.createItem, properties, value,
        true, from: caller
      ).0
    }

    func search(by caller: BusName) async throws -> (unlocked: [ObjectPath], locked: [ObjectPath]) {
      try await transport.call(
        AccessInMemoryTests.service, SecretService.ServiceMethods.searchItems,
        ["service": "mail"], from: caller)
    }

    func read(_ item: ObjectPath, by caller: BusName) async throws -> String {
      let secret = try await transport.call(
        item, SecretService.ItemMethods.getSecret, try await session(of: caller), from: caller)
      return String(decoding: secret.value, as: UTF8.self)
    }

    /// "OP DECISION APP" of each audit record, once the daemon has written them all.
    func audit() throws -> [String] {
      daemon.stopping()
      return try String(contentsOfFile: auditPath, encoding: .utf8).split(separator: "\n")
        .compactMap {
          guard
            let record = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any],
            let op = record["op"], let decision = record["decision"],
            let key = (record["app"] as? [String: Any])?["key"]
          else { return nil }
          return "\(op) \(decision) \(key)"
        }
    }
  }

  @Test func theOwnerReadsItsItemAndAnotherProgramFindsItLocked() async throws {
    let harness = try Harness()
    let item = try await harness.store("s3cret", by: Self.mail)
    #expect(try await harness.search(by: Self.mail) == ([item], []))
    #expect(try await harness.read(item, by: Self.mail) == "s3cret")
    // To Tool the item is locked: libsecret would call Unlock, which asks the user.
    #expect(try await harness.search(by: Self.tool) == ([], [item]))
    let refused = await #expect(throws: DBusError.self) {
      try await harness.read(item, by: Self.tool)
    }
    #expect(refused?.name == .isLocked, "\(String(describing: refused))")
    let audit = try harness.audit()
    #expect(audit.contains("create owner exe:/usr/bin/mail"), "\(audit)")
    #expect(audit.contains("read owner exe:/usr/bin/mail"), "\(audit)")
  }

  @Test func anotherProgramMayNotReplaceAnItemItDoesNotOwn() async throws {
    let harness = try Harness()
    let item = try await harness.store("original", by: Self.mail)
    do {
      _ = try await harness.store("taken", by: Self.tool)
      Issue.record("Tool replaced Mail's item")
    } catch let error as DBusError {
      #expect(error.message.contains("belongs to another program"), "\(error)")
      #expect(error.message.contains("keychainctl access allow --app 'exe:/usr/bin/tool'"))
    }
    #expect(try await harness.read(item, by: Self.mail) == "original")
  }

  @Test func auditModeChangesNoReplyAndLogsWhatProtectWouldAsk() async throws {
    let harness = try Harness(.audit)
    let item = try await harness.store("s3cret", by: Self.mail)
    #expect(try await harness.search(by: Self.tool) == ([item], []))
    #expect(try await harness.read(item, by: Self.tool) == "s3cret")
    let audit = try harness.audit()
    #expect(audit.contains("read would-ask exe:/usr/bin/tool"), "\(audit)")
  }
}
