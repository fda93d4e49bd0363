// SPDX-License-Identifier: MIT
//
// When a refusal becomes a desktop notification (`RefusalNotices`), with a clock the test
// moves: the third refusal within ten minutes, the first for want of a display, at most one per
// program every ten minutes, none for a program that cannot be identified or when turned off.

import Foundation
import KeychainAccess
import Testing

@testable import KeychainDaemonCore

@Suite struct RefusalNoticesTests {
  static let mail = AppIdentity(
    kind: .system, key: "exe:/usr/bin/mail", display: "Mail", verified: true)
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  func refusal(
    _ decision: AuditRecord.Decision = .denied, by identity: AppIdentity = mail,
    item: String = "/org/freedesktop/secrets/collection/login/7"
  ) -> [AuditRecord] {
    [
      AuditRecord(
        op: .read, decision: decision, app: AuditRecord.App(identity, pid: 42), sender: ":1.9",
        item: item)
    ]
  }

  @Test func theThirdRefusalWithinTenMinutesIsShownOnce() {
    let notices = RefusalNotices(enabled: true)
    #expect(notices.notice(after: refusal(), now: Self.start) == nil)
    #expect(notices.notice(after: refusal(), now: Self.start + 60) == nil)
    let shown = notices.notice(after: refusal(), now: Self.start + 120)
    #expect(shown?.summary == "Mail was refused your secrets")
    #expect(
      shown?.body
        == "Mail was refused access 3 times in ten minutes. To allow it for good: keychainctl access allow --app 'exe:/usr/bin/mail' /org/freedesktop/secrets/collection/login/7 --password-stdin"
    )
    // More refusals in the next ten minutes show nothing; ten minutes after the notification,
    // the next refusal shows one again if two more fell within its own ten minutes.
    #expect(notices.notice(after: refusal(), now: Self.start + 300) == nil)
    #expect(notices.notice(after: refusal(), now: Self.start + 719) == nil)
    #expect(notices.notice(after: refusal(), now: Self.start + 721) != nil)
  }

  @Test func refusalsOlderThanTenMinutesDoNotCount() {
    let notices = RefusalNotices(enabled: true)
    #expect(notices.notice(after: refusal(), now: Self.start) == nil)
    #expect(notices.notice(after: refusal(), now: Self.start + 500) == nil)
    #expect(notices.notice(after: refusal(), now: Self.start + 601) == nil)
    #expect(notices.notice(after: refusal(), now: Self.start + 700) != nil)
  }

  @Test func aProgramWhoseNameCouldQuoteOrMarkUpGetsNoCommandToPaste() {
    let notices = RefusalNotices(enabled: true)
    let sly = AppIdentity(
      kind: .script, key: "script:/usr/bin/python3.11:/tmp/x'; rm -rf ~; '.py",
      display: "<a href='x'>Mail</a>", verified: false)
    let shown = notices.notice(after: refusal(.noDisplay, by: sly), now: Self.start)
    #expect(shown?.summary == "A program was refused your secrets")
    #expect(shown?.body.contains("keychainctl audit --since 10m") == true)
    #expect(shown?.body.contains("rm -rf") == false && shown?.body.contains("<a") == false)
  }

  @Test func aProgramRefusedInALoopKeepsOnlyAFewDates() {
    let notices = RefusalNotices(enabled: true)
    for second in 0..<10_000 {
      _ = notices.notice(after: refusal(), now: Self.start + Double(second) / 100)
    }
    let kept = notices.programs.withLock { $0[Self.mail.key]?.refusals.count }
    #expect(kept == RefusalNotices.threshold)
    // One notification for the whole burst, and the next only ten minutes after it.
    #expect(notices.notice(after: refusal(), now: Self.start + 599) == nil)
    #expect(notices.notice(after: refusal(), now: Self.start + 601) != nil)
  }

  @Test func aRefusalForWantOfADisplayIsShownAtOnce() {
    let notices = RefusalNotices(enabled: true)
    let shown = notices.notice(after: refusal(.noDisplay), now: Self.start)
    #expect(
      shown?.body.contains("there was no display to ask on") == true, "\(String(describing: shown))"
    )
  }

  @Test func nothingForAllowsForUnknownProgramsOrWhenOff() {
    let notices = RefusalNotices(enabled: true)
    for _ in 0..<3 {
      #expect(notices.notice(after: refusal(.owner), now: Self.start) == nil)
      #expect(
        notices.notice(
          after: refusal(.noDisplay, by: .unknown(pid: 7, why: "gone")), now: Self.start)
          == nil)
    }
    let off = RefusalNotices(enabled: false)
    #expect(off.notice(after: refusal(.noDisplay), now: Self.start) == nil)
  }

  @Test func theNotificationIsANotifyCallThatWantsNoReply() {
    let message = RefusalNotices.Notice(summary: "s", body: "b").message
    #expect(message.destination?.rawValue == "org.freedesktop.Notifications")
    #expect(message.member?.rawValue == "Notify")
    #expect(message.noReplyExpected)
    #expect(message.body.count == 8)
  }
}
