// SPDX-License-Identifier: MIT
//
// Which collections lock by themselves, and when. Each event (the screen lock, sleep, the last
// logout) and each timer (idle, unused) locks the unlocked collections whose lock policy says
// so: the collection's own settings (`keychainctl lock-policy`) over keychaind.conf's. Timers
// are checked a few times a minute, so that a policy changed at run time applies without a
// restart.

import Foundation
import KeychainDBus
import KeychainStore
import Logging
import SecretServiceServer
import Synchronization

final class AutoLock: Sendable {
  /// What happened outside the keyring.
  enum Event {
    case screenLock, sleep, logout

    var reason: String {
      switch self {
      case .screenLock: "the session was locked"
      case .sleep: "the machine is going to sleep"
      case .logout: "the user's last session ended"
      }
    }

    func applies(_ policy: LockPolicy) -> Bool {
      switch self {
      case .screenLock: policy.onScreenLock == true
      case .sleep: policy.beforeSleep == true
      case .logout: policy.atLogout == true
      }
    }
  }

  let daemon: SecretServiceDaemon
  let connection: Connection
  let defaults: LockPolicy
  let logger: Logger
  /// Seconds in a timer minute: 60, or KEYCHAIND_TEST_MINUTE_SECONDS for tests.
  let minute: Double
  /// Since when logind has said the session is idle (nil: active, or not known), and the
  /// collections the idle timer locked since then: each locks once per idle spell, so one
  /// unlocked again while the session is still idle stays open.
  private let idleSpell = Mutex<(since: ContinuousClock.Instant, locked: Set<String>)?>(nil)

  init(
    daemon: SecretServiceDaemon, connection: Connection,
    defaults: LockPolicy, logger: Logger, environment: [String: String]
  ) {
    self.daemon = daemon
    self.connection = connection
    self.defaults = defaults
    self.logger = logger
    minute = environment["KEYCHAIND_TEST_MINUTE_SECONDS"].flatMap(Double.init) ?? 60
  }

  /// Locks the collections `event` applies to.
  func lock(_ event: Event) async {
    await lock(event.reason) { _, policy in event.applies(policy) }
  }

  /// The desktop's screensaver on the session bus: GNOME Shell sends
  /// org.gnome.ScreenSaver.ActiveChanged(true) when the screen locks, KDE and others
  /// org.freedesktop.ScreenSaver's. Followed besides logind's Lock, which not every locker
  /// sets, and without logind at all.
  func followScreenSaver() async {
    for interface: InterfaceName in ["org.gnome.ScreenSaver", "org.freedesktop.ScreenSaver"] {
      guard
        let changes = try? await connection.signals(
          matching: MatchRule(interface: interface, member: "ActiveChanged"))
      else {
        logger.warning("cannot follow \(interface.rawValue) on the session bus")
        continue
      }
      Task {
        for await message in changes where message.body.first == .boolean(true) {
          await lock(.screenLock)
        }
      }
    }
  }

  /// Notes logind's IdleHint.
  func idle(_ isIdle: Bool) {
    idleSpell.withLock { spell in
      spell = isIdle ? (spell ?? (.now, [])) : nil
    }
  }

  /// Whether any collection, or the defaults, lock before sleep (and so need the inhibitor).
  var locksBeforeSleep: Bool {
    defaults.beforeSleep == true
      || ((try? daemon.lockPolicies()) ?? [:]).values.contains { $0.beforeSleep == true }
  }

  /// Checks the idle and unused timers a few times a minute until cancelled; `tick` runs
  /// after each check.
  func runTimers(tick: @escaping @Sendable () async -> Void = {}) -> Task<Void, Never> {
    Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(minute / 4))
        await checkTimers()
        await tick()
      }
    }
  }

  private func checkTimers() async {
    // Most set-ups have no timer at all: then nothing is looked at.
    let policies = [defaults] + ((try? daemon.lockPolicies()) ?? [:]).values
    let (anyIdle, anyUnused) = (
      policies.contains { ($0.afterIdleMinutes ?? 0) > 0 },
      policies.contains { ($0.afterUnusedMinutes ?? 0) > 0 }
    )
    let limit = { (minutes: Int?) in Duration.seconds(Double(minutes ?? 0) * self.minute) }
    if anyIdle, let spell = idleSpell.withLock({ $0 }) {
      let idle = ContinuousClock.now - spell.since
      let locked = await lock("the session was idle") { name, policy in
        !spell.locked.contains(name) && (policy.afterIdleMinutes ?? 0) > 0
          && idle >= limit(policy.afterIdleMinutes)
      }
      idleSpell.withLock { current in
        if current?.since == spell.since { current?.locked.formUnion(locked) }
      }
    }
    guard anyUnused else { return }
    var locked: [Int: [String]] = [:]
    _ = await daemon.lock(on: connection) { [daemon] name, policy in
      guard let minutes = policy.afterUnusedMinutes, minutes > 0,
        daemon.sinceLastUse(of: name) >= limit(minutes)
      else { return false }
      locked[minutes, default: []].append(name)
      return true
    }
    for (minutes, names) in locked.sorted(by: { $0.key < $1.key }) {
      logger.info(
        "locked \(names.joined(separator: ", ")): no secret was used for \(minutes) minutes")
    }
  }

  @discardableResult
  private func lock(_ reason: String, where applies: (String, LockPolicy) -> Bool) async
    -> [String]
  {
    let locked = await daemon.lock(on: connection, where: applies)
    if !locked.isEmpty { logger.info("locked \(locked.joined(separator: ", ")): \(reason)") }
    return locked
  }
}
