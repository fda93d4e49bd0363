// SPDX-License-Identifier: MIT
//
// Desktop notifications about refusals the user may want to undo. pinentry's dialog has three
// buttons and no room for "how do I allow this for good?", and a program refused with no
// display to ask on (SSH, cron) shows no dialog at all. So keychaind tells the desktop, through
// `org.freedesktop.Notifications` (when something serves it): once a program has been refused
// three times within ten minutes, or at its first refusal for want of a display. The
// notification names the program and the exact command that allows it. At most one per
// program every ten minutes, so a program retrying in a loop is not a storm of them.

import Foundation
import KeychainAccess
import KeychainDBus
import SecretServiceProtocol
import Synchronization

/// Decides when a refusal is worth a notification (see the top of this file).
final class RefusalNotices: Sendable {
  /// How far back refusals count, and how long a program's notification holds off the next.
  static let window: TimeInterval = 600
  /// Refusals within the window that call for a notification.
  static let threshold = 3
  /// Programs kept in mind before those with nothing in the window are forgotten.
  static let remembered = 64

  /// Whether notifications are sent at all (keychaind.conf's `access-notify`).
  let enabled: Bool

  /// What is kept of one program's refusals.
  struct Program {
    var refusals: [Date] = []
    var notified: Date?
  }
  /// By the program's key.
  let programs = Mutex<[String: Program]>([:])

  init(enabled: Bool) { self.enabled = enabled }

  /// The notification due after `records`, one call's records, if any. A program that cannot
  /// be identified gets none: nothing can be allowed to it for good.
  func notice(after records: [AuditRecord], now: Date = Date()) -> Notice? {
    // Called for every call's records: most hold no refusal, and cost one pass and no array.
    guard enabled, records.contains(where: \.isRefusal) else { return nil }
    let refused = records.filter { $0.isRefusal && !$0.app.key.isEmpty }
    guard let first = refused.first else { return nil }
    let headless = refused.contains { $0.decision == .noDisplay }
    let count: Int? = programs.withLock { programs in
      if programs.count >= Self.remembered {
        // Programs with nothing left in the window are forgotten, so the table stays small.
        programs = programs.filter { _, program in
          (program.refusals + [program.notified].compactMap { $0 }).contains {
            now.timeIntervalSince($0) < Self.window
          }
        }
      }
      var program = programs[first.app.key, default: Program()]
      defer { programs[first.app.key] = program }
      program.refusals.removeAll { now.timeIntervalSince($0) >= Self.window }
      // Only the last few count: a program refused in a loop keeps a few dates, not millions.
      program.refusals = program.refusals.suffix(Self.threshold - 1) + [now]
      guard headless || program.refusals.count >= Self.threshold,
        program.notified.map({ now.timeIntervalSince($0) >= Self.window }) ?? true
      else { return nil }
      program.notified = now
      return program.refusals.count
    }
    guard let count else { return nil }
    let items = Set(refused.compactMap(\.item)).sorted()
    let why =
      headless
      ? "was refused access to \(items.count == 1 ? "an item" : "\(items.count) items") and there was no display to ask on"
      : "was refused access \(count) times in ten minutes"
    let command = AccessControl.allowCommand(first.app.key, items)
    // The name and the key come from the program (a script chooses its own file name): a
    // command the user would paste, in a body the desktop may read as markup, is offered only
    // when nothing in it can act as quoting or markup.
    let plain = !(first.app.display + first.app.key + items.joined()).contains { character in
      "'\"\\<>&`$".contains(character) || character.isNewline
        || character.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true
    }
    return Notice(
      summary: plain
        ? "\(first.app.display) was refused your secrets" : "A program was refused your secrets",
      body: plain
        ? "\(first.app.display) \(why). To allow it for good: \(command)"
        : "A program \(why). `\(KeychainctlCommand.auditRecent)` shows which, and "
          + "`\(KeychainctlCommand.accessAllow)` allows it."
    )
  }

  /// One desktop notification.
  struct Notice: Sendable, Equatable {
    var summary: String
    var body: String

    package static let notify = Takes<
      String, UInt32, String, String, String, [String], [String: DBusValue], Int32
    >.Returns<UInt32>(
      "org.freedesktop.Notifications", "Notify",
      [
        "app_name", "replaces_id", "app_icon", "summary", "body", "actions", "hints",
        "expire_timeout",
      ], ["id"], errors: [])

    /// The `Notify` call that shows it; no reply is awaited, and a desktop with no
    /// notification service simply shows nothing.
    var message: Message {
      var message = Message.methodCall(
        destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
        interface: Self.notify.interface, member: Self.notify.name,
        body: Self.notify.arguments(
          "keychaind", 0, "dialog-password", summary, body, [], [:], -1))
      message.noReplyExpected = true
      return message
    }
  }
}
