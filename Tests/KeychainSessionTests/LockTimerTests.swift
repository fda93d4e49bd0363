// SPDX-License-Identifier: MIT
//
// The lock timers in memory, on a clock the test moves: "after N minutes unused" counts from
// the last read or write of a secret, "after N minutes idle" from logind's IdleHint and locks
// once per idle spell, and the session's events lock what their policies say. No scaled
// minute, no sleep: each step moves the clock and checks the timers once.

import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainSession
import KeychainStore
import KeychainTesting
import SecretServiceProtocol
import SecretServiceServer
import Testing

@Suite struct LockTimerTests {
  static let service: ObjectPath = "/org/freedesktop/secrets"
  static let password = SecureBytes(copying: Array("pw".utf8))

  /// `login` and `work`, unlocked, served in memory, with the lock timers on a manual clock.
  final class Harness: Sendable {
    let directory: TemporaryDirectory
    let store: KeychainStore
    let clock = ManualClock()
    let tree: InMemoryTransport
    let autoLock: AutoLock

    init(defaults: LockPolicy) throws {
      directory = try TemporaryDirectory(prefix: "lock-timers")
      store = try KeychainStore(directory: directory.path + "/store", kdf: .testing)
      for name in ["login", "work"] {
        try store.createCollection(name: name, label: name, password: LockTimerTests.password)
      }
      let logger = CapturedLog().logger(label: "lock-timers")
      let daemon = SecretServiceDaemon(
        store: store, pinentry: nil, logger: logger, lockDefaults: defaults, clock: clock)
      tree = InMemoryTransport(serving: daemon.objectServer(), queuingAfterReplyWork: true)
      autoLock = AutoLock(
        core: daemon.core, transport: tree, defaults: defaults, logger: logger)
    }

    /// Moves the clock on by `minutes` and checks the timers, as the daemon does a few times
    /// a minute.
    func pass(minutes: Int) async {
      clock.advance(by: .seconds(60 * minutes))
      await autoLock.checkTimers()
    }

    var unlocked: [String] { ["login", "work"].filter { !store.isLocked($0) } }

    /// Reads every secret of `collection` through the service (a use of it).
    func use(_ collection: String) async throws {
      let session = try await tree.call(
        LockTimerTests.service, SecretService.ServiceMethods.openSession, "plain", .string("")
      ).1
      let items = try await tree.call(
        LockTimerTests.service, SecretService.ServiceMethods.searchItems, [:]
      ).0.filter { $0.rawValue.contains("/\(collection)/") }
      _ = try await tree.call(
        LockTimerTests.service, SecretService.ServiceMethods.getSecrets, items, session)
    }
  }

  @Test func unusedCollectionsLockAfterTheirMinutes() async throws {
    let harness = try Harness(defaults: LockPolicy(afterUnusedMinutes: 10))
    // work's own policy: sooner.
    try harness.store.setLockPolicy(LockPolicy(afterUnusedMinutes: 3), of: "work")
    _ = try harness.store.createItem(
      in: "login", label: "mail", attributes: [:], secret: LockTimerTests.password,
      contentType: "text/plain", replace: false)
    await harness.pass(minutes: 0)  // the timers first see both collections now
    await harness.pass(minutes: 2)
    #expect(harness.unlocked == ["login", "work"])
    await harness.pass(minutes: 1)
    #expect(harness.unlocked == ["login"], "work: 3 minutes unused")
    await harness.pass(minutes: 5)
    try await harness.use("login")  // 8 minutes in: login was used
    await harness.pass(minutes: 9)
    #expect(harness.unlocked == ["login"], "login: used 9 minutes ago")
    await harness.pass(minutes: 1)
    #expect(harness.unlocked == [])
    // Each lock was announced to clients: the collection's new Locked, after the timer's work.
    _ = harness.tree.takeSent()
    await harness.tree.settle()
    let locked = harness.tree.takeSent().filter {
      $0.member == "PropertiesChanged" && $0.path?.rawValue.hasSuffix("/collection/login") == true
    }
    #expect(
      locked.map { $0.body.dropFirst().first } == [["Locked": DBusValue.boolean(true)].dbusValue])
  }

  @Test func idleLocksOncePerIdleSpell() async throws {
    let harness = try Harness(defaults: LockPolicy(afterIdleMinutes: 5))
    await harness.pass(minutes: 30)
    #expect(harness.unlocked == ["login", "work"], "never idle: nothing locks")
    harness.autoLock.idle(true)
    await harness.pass(minutes: 4)
    #expect(harness.unlocked == ["login", "work"])
    await harness.pass(minutes: 1)
    #expect(harness.unlocked == [])
    // Unlocked again while still idle: it stays open for the rest of this spell.
    try harness.store.unlock("login", password: LockTimerTests.password)
    await harness.pass(minutes: 20)
    #expect(harness.unlocked == ["login"])
    // Active, then idle again: a new spell, and it locks after its minutes.
    harness.autoLock.idle(false)
    harness.autoLock.idle(true)
    await harness.pass(minutes: 4)
    #expect(harness.unlocked == ["login"])
    await harness.pass(minutes: 1)
    #expect(harness.unlocked == [])
  }

  @Test func sessionEventsLockWhatTheirPoliciesSay() async throws {
    let harness = try Harness(defaults: LockPolicy(onScreenLock: true))
    try harness.store.setLockPolicy(LockPolicy(onScreenLock: false, beforeSleep: true), of: "work")
    await harness.autoLock.lock(.screenLock)
    #expect(harness.unlocked == ["work"])
    await harness.autoLock.lock(.logout)
    #expect(harness.unlocked == ["work"], "no policy locks at logout")
    await harness.autoLock.lock(.sleep)
    #expect(harness.unlocked == [])
  }
}
