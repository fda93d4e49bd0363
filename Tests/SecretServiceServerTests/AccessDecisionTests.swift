// SPDX-License-Identifier: MIT
//
// One call's access decisions (`AccessDecision`), in memory: an item is decided once per call,
// so that the lock state a client is shown, the read and its audit record agree, until the
// call's own dialog changes the answer (`forget`). A later call decides again.

import Foundation
import KeychainAccess
import KeychainCrypto
import KeychainDBus
import KeychainStore
import KeychainTesting
import Synchronization
import Testing

@testable import KeychainDaemonCore

@Suite struct AccessDecisionTests {
  static let mail = AppIdentity(
    kind: .system, key: "exe:/usr/bin/mail", display: "Mail", verified: true)
  static let tool = AppIdentity(
    kind: .system, key: "exe:/usr/bin/tool", display: "Tool", verified: true)

  /// A store in `protect` with one item of Mail's, and the access control over it.
  struct Fixture {
    let login: LoginStore
    var store: KeychainStore { login.store }
    let access: AccessControl
    let item: ItemID

    /// The wall clock the access rules read, moved by the test.
    let clock = WallClock()

    init() throws {
      login = try LoginStore("access-decision")
      item = try login.store.createItem(
        in: "login", label: "Mail", attributes: ["app": "mail"],
        secret: SecureBytes(copying: Array("s3cret".utf8)),
        replace: false, owner: ItemOwner(key: AccessDecisionTests.mail.key)
      ).item
      let clock = clock
      access = AccessControl(
        AccessSettings(mode: .protect, now: { clock.now }), store: login.store,
        logger: CapturedLog().logger(label: "access-decision"))
    }

    func caller(_ identity: AppIdentity) -> CallerApp {
      CallerApp(identity: identity, pid: nil, startTime: nil, sender: BusName(":1.9"))
    }

    func decision(for identity: AppIdentity) -> AccessDecision {
      AccessDecision(caller: caller(identity), access: access, store: store)
    }

    /// Tool's "Always allow" for the item, as the dialog stores it.
    func allowTool() throws {
      try store.addGrant(
        AccessGrant(
          app: AccessDecisionTests.tool.key, pin: nil, collection: "login", item: item.id,
          source: "dialog"))
    }
  }

  @Test func theOwnerIsAllowedAndAnotherProgramIsAsked() throws {
    let fixture = try Fixture()
    let owner = fixture.decision(for: Self.mail)
    #expect(owner.answer(fixture.item) == .allow(.owner))
    #expect(owner.allows(fixture.item))
    let other = fixture.decision(for: Self.tool)
    #expect(other.answer(fixture.item) == .ask(changed: false))
    #expect(!other.allows(fixture.item))
  }

  @Test func anItemIsDecidedOncePerCallUntilTheCallsDialogAnswers() throws {
    let fixture = try Fixture()
    let call = fixture.decision(for: Self.tool)
    #expect(!call.allows(fixture.item))
    // A grant made meanwhile (another call's dialog) does not change this call's answer.
    try fixture.allowTool()
    #expect(!call.allows(fixture.item))
    #expect(call.answer(fixture.item) == .ask(changed: false))
    // This call's own dialog does: what was kept for the item goes.
    call.forget([fixture.item])
    #expect(call.answer(fixture.item) == .allow(.grant))
    // A new call decides afresh.
    #expect(fixture.decision(for: Self.tool).allows(fixture.item))
  }

  @Test func notesKeepTheirOrderForTheAuditRecords() throws {
    let fixture = try Fixture()
    let call = fixture.decision(for: Self.tool)
    call.note(.read, .denied, "/org/freedesktop/secrets/collection/login/1")
    call.note(.write, .grant, "/org/freedesktop/secrets/collection/login/2")
    #expect(call.notes.map(\.operation) == [.read, .write])
    #expect(call.notes.map(\.decision) == [.denied, .grant])
    #expect(call.notes.last?.path == "/org/freedesktop/secrets/collection/login/2")
  }

  @Test func aDenialQuietsAskingUntilItRunsOutOnTheRulesClock() throws {
    let fixture = try Fixture()
    let tool = fixture.caller(Self.tool)
    fixture.access.deny(tool, [fixture.item])
    #expect(fixture.access.recentlyDenied(tool, fixture.item))
    fixture.clock.advance(by: AccessControl.denialQuiet - 1)
    #expect(fixture.access.recentlyDenied(tool, fixture.item))
    fixture.clock.advance(by: 1)
    #expect(!fixture.access.recentlyDenied(tool, fixture.item))
    // Another program's denial is its own.
    fixture.access.deny(tool, [fixture.item])
    #expect(!fixture.access.recentlyDenied(fixture.caller(Self.mail), fixture.item))
  }
}

/// A wall clock that stands still until the test moves it.
final class WallClock: Sendable {
  private let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
  var now: Date { time.withLock { $0 } }
  func advance(by seconds: TimeInterval) { time.withLock { $0 += seconds } }
}
