// SPDX-License-Identifier: MIT
//
// The rules, decided without a daemon: the owner reads, grants hold for the content they were
// made for, allow-once lasts as long as it was given for, and an unknown program is never
// remembered.

import Foundation
import KeychainAccess
import KeychainPrompt
import Testing

@Suite struct AccessPolicyTests {
  let mail = AppIdentity(kind: .system, key: "exe:/usr/bin/mail", display: "mail", verified: true)
  let tool = AppIdentity(
    kind: .user, key: "exe:/home/u/tool", pin: "sha256:aa", display: "tool", verified: true)

  func grant(_ app: String, pin: String? = nil, item: Int64? = 1) -> AccessGrant {
    AccessGrant(app: app, pin: pin, collection: "login", item: item, source: "cli")
  }

  @Test func theOwnerReadsWithoutAsking() {
    #expect(
      AccessPolicy.decide(mail, owner: ItemOwner(key: mail.key), grants: [], allowedOnce: false)
        == .allow(.owner))
  }

  @Test func anotherApplicationIsAsked() {
    #expect(
      AccessPolicy.decide(tool, owner: ItemOwner(key: mail.key), grants: [], allowedOnce: false)
        == .ask(changed: false))
    #expect(
      AccessPolicy.decide(tool, owner: nil, grants: [], allowedOnce: false) == .ask(changed: false))
    #expect(
      AccessPolicy.decide(tool, owner: ItemOwner(key: mail.key), grants: [], allowedOnce: true)
        == .allow(.allowedOnce))
  }

  @Test func aGrantHoldsForTheContentItWasMadeFor() {
    let same = [grant(tool.key, pin: "sha256:aa")]
    #expect(
      AccessPolicy.decide(tool, owner: ItemOwner(key: mail.key), grants: same, allowedOnce: false)
        == .allow(.grant)
    )
    let other = [grant(tool.key, pin: "sha256:bb")]
    #expect(
      AccessPolicy.decide(tool, owner: ItemOwner(key: mail.key), grants: other, allowedOnce: false)
        == .ask(changed: true))
    let someoneElse = [grant(mail.key)]
    #expect(
      AccessPolicy.decide(tool, owner: nil, grants: someoneElse, allowedOnce: false)
        == .ask(changed: false))
  }

  @Test func aGrantCoversItsItemOrItsWholeCollection() {
    #expect(grant(tool.key, item: 1).covers(collection: "login", item: 1, owner: nil))
    #expect(!grant(tool.key, item: 1).covers(collection: "login", item: 2, owner: nil))
    #expect(grant(tool.key, item: nil).covers(collection: "login", item: 2, owner: mail.key))
    #expect(!grant(tool.key, item: nil).covers(collection: "work", item: 2, owner: nil))
  }

  @Test func aGroupMembershipCoversWhatTheGroupOwnsInItsCollection() {
    let member = AccessGrant(
      app: tool.key, pin: "sha256:aa", collection: "login", item: nil, group: "group:shared",
      source: "cli")
    #expect(member.covers(collection: "login", item: 2, owner: "group:shared"))
    #expect(!member.covers(collection: "login", item: 2, owner: "group:other"))
    #expect(!member.covers(collection: "login", item: 2, owner: mail.key))
    #expect(!member.covers(collection: "login", item: 2, owner: nil))
    #expect(!member.covers(collection: "work", item: 2, owner: "group:shared"))
    #expect(member.admits(to: "group:shared", pin: "sha256:aa"))
    #expect(!member.admits(to: "group:shared", pin: "sha256:bb"), "the program changed")
    #expect(!member.admits(to: "group:other", pin: "sha256:aa"))
  }

  @Test func groupNamesAreShortAndPlain() {
    #expect(AccessGrant.groupKey("shared") == "group:shared")
    #expect(AccessGrant.groupKey("group:team-1.x_y") == "group:team-1.x_y")
    for bad in ["", "group:", "a b", "a/b", "ü", String(repeating: "a", count: 65), "a:b"] {
      #expect(AccessGrant.groupKey(bad) == nil, "\(bad)")
    }
  }

  @Test func anUnknownProgramOwnsNothingAndIsNeverGranted() {
    let unknown = AppIdentity.unknown(pid: 7, why: "it hides its executable")
    #expect(!unknown.isRememberable)
    #expect(
      AccessPolicy.decide(
        unknown, owner: ItemOwner(key: ""), grants: [grant("")], allowedOnce: false)
        == .ask(changed: false))
    #expect(
      AccessPolicy.decide(unknown, owner: nil, grants: [], allowedOnce: true)
        == .allow(.allowedOnce))
  }

  @Test func theDialogQuotesLabelsCleanedAndCutShort() {
    let question = AccessQuestion(
      app: "tool", identification: "It is identified by its path /home/u/tool.",
      labels: ["evil\u{202E}txt.exe", String(repeating: "x", count: 100), "a", "b", "c", "d"],
      canRemember: true, changed: false)
    let text = question.description
    #expect(!text.contains("\u{202E}"))
    #expect(text.contains("“eviltxt.exe”"))
    #expect(text.contains("and 1 more"))
    #expect(text.contains(String(repeating: "x", count: 59) + "…"))
    #expect(text.hasPrefix("“tool” wants to read 6 passwords it did not store"))
  }
}
