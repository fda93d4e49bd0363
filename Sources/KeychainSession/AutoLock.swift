// SPDX-License-Identifier: MIT
//
// Which collections lock by themselves, and when. Each event (the screen lock, sleep, the last
// logout) and each timer (idle, unused) locks the unlocked collections whose lock policy says
// so: the collection's own settings (`keychainctl lock-policy`) over keychaind.conf's. Timers
// are checked a few times a minute, so that a policy changed at run time applies without a
// restart. Time is the daemon's clock (`DaemonClock`): tests move it by hand.

import Foundation
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import Logging
import Synchronization

/// Locks collections on the session's events and by their timers, as their policies say.
public final class AutoLock: Sendable {
  /// What happened outside the keyring.
  public enum Event: Sendable {
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

  let core: DaemonCore
  /// Where the lock's signals go.
  let transport: any MessageTransport
  let defaults: LockPolicy
  let logger: Logger
  /// A timer minute on the daemon's clock: 60 s, or less for the tests that run the binary.
  let minute: Duration
  var clock: any DaemonClock { core.clock }
  /// Since when logind has said the session is idle (nil: active, or not known), and the
  /// collections the idle timer locked since then: each locks once per idle spell, so one
  /// unlocked again while the session is still idle stays open.
  private let idleSpell = Mutex<(since: Duration, locked: Set<String>)?>(nil)

  /// Locks the core's collections, announcing it on `transport`, by `defaults` under each
  /// collection's own policy.
  public init(
    core: DaemonCore, transport: any MessageTransport, defaults: LockPolicy,
    logger: Logger, minute: Duration = .seconds(60)
  ) {
    self.core = core
    self.transport = transport
    self.defaults = defaults
    self.logger = logger
    self.minute = minute
  }

  /// Locks the collections `event` applies to.
  public func lock(_ event: Event) async {
    await lock(event.reason) { _, policy in event.applies(policy) }
  }

  /// The desktop's screensaver on the session bus: GNOME Shell sends
  /// org.gnome.ScreenSaver.ActiveChanged(true) when the screen locks, KDE and others
  /// org.freedesktop.ScreenSaver's. Followed besides logind's Lock, which not every locker
  /// sets, and without logind at all.
  public func followScreenSaver(on connection: Connection) async {
    for signal in ScreenSaver.activeChanged {
      guard let changes = try? await connection.signals(matching: signal.rule()) else {
        logger.warning("cannot follow \(signal.interface.rawValue) on the session bus")
        continue
      }
      Task {
        for await message in changes where (try? signal.arguments(of: message)) == true {
          await lock(.screenLock)
        }
      }
    }
  }

  /// Notes logind's IdleHint.
  public func idle(_ isIdle: Bool) {
    let now = clock.now
    idleSpell.withLock { spell in
      spell = isIdle ? (spell ?? (now, [])) : nil
    }
  }

  /// Whether any collection, or the defaults, lock before sleep (and so need the inhibitor).
  var locksBeforeSleep: Bool {
    defaults.beforeSleep == true
      || ((try? core.lockPolicies()) ?? [:]).values.contains { $0.beforeSleep == true }
  }

  /// Checks the idle and unused timers a few times a minute until cancelled; `tick` runs
  /// after each check.
  public func runTimers(tick: @escaping @Sendable () async -> Void = {}) -> Task<Void, Never> {
    Task {
      while !Task.isCancelled {
        try? await clock.sleep(for: minute / 4)
        await checkTimers()
        await tick()
      }
    }
  }

  /// Locks what the idle and unused timers say should lock now.
  public func checkTimers() async {
    // Most set-ups have no timer at all: then nothing is looked at.
    let policies = [defaults] + ((try? core.lockPolicies()) ?? [:]).values
    let (anyIdle, anyUnused) = (
      policies.contains { ($0.afterIdleMinutes ?? 0) > 0 },
      policies.contains { ($0.afterUnusedMinutes ?? 0) > 0 }
    )
    let limit = { (minutes: Int?) in self.minute * (minutes ?? 0) }
    if anyIdle, let spell = idleSpell.withLock({ $0 }) {
      let idle = clock.now - spell.since
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
    _ = await core.lock(on: transport) { [core] name, policy in
      guard let minutes = policy.afterUnusedMinutes, minutes > 0,
        core.sinceLastUse(of: name) >= limit(minutes)
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
    let locked = await core.lock(on: transport, where: applies)
    if !locked.isEmpty { logger.info("locked \(locked.joined(separator: ", ")): \(reason)") }
    return locked
  }
}
