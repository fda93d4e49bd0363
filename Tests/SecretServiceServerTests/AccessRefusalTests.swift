// SPDX-License-Identifier: MIT
//
// The access rules' refusals as a program reads them (`AccessRefusal`): each has the error name
// its clients tell apart, names the program, and where one command allows it, gives that
// command for the program's key and the items' paths.

import KeychainAccess
import KeychainDBus
import Testing

@testable import KeychainDaemonCore

@Suite struct AccessRefusalTests {
  static let mail = AppIdentity(
    kind: .system, key: "exe:/usr/bin/mail", display: "Mail", verified: true)
  static let item = "/org/freedesktop/secrets/collection/login/7"

  @Test func refusalsThatOneCommandAllowsGiveIt() {
    let allow = "keychainctl access allow --app 'exe:/usr/bin/mail' \(Self.item)"
    for refusal in [
      AccessRefusal.replace(Self.mail, item: Self.item),
      .readWithoutDisplay(Self.mail, items: [Self.item]),
    ] {
      let error = refusal.error
      #expect(error.name == .accessDenied)
      #expect(error.message.hasPrefix("“Mail” ") || error.message.contains("which “Mail” may not"))
      #expect(error.message.contains(allow), "\(error.message)")
    }
    let group = AccessRefusal.notMember(Self.mail, group: "group:mailers").error
    #expect(group.name == .notInAccessGroup)
    #expect(group.message.contains("keychainctl access group add mailers"), "\(group.message)")
  }

  @Test func aReadOfSeveralItemsSaysSoAndNamesEach() {
    let other = "/org/freedesktop/secrets/collection/login/8"
    let error = AccessRefusal.readWithoutDisplay(Self.mail, items: [Self.item, other]).error
    #expect(error.message.hasPrefix("“Mail” may not read these items and there is no display"))
    #expect(error.message.contains(Self.item) && error.message.contains(other))
  }

  @Test func everyRefusalHasItsName() {
    let denied: [AccessRefusal] = [
      .changeWithoutDisplay(Self.mail, change: "make another keyring the default"),
      .changeNotAllowed(change: "make another keyring the default"), .deletionWhileLocked,
      .notKeychainctl(Self.mail), .shareIsReadOnly,
      .notThroughShare(method: "org.freedesktop.Secret.Service.Lock"),
    ]
    for refusal in denied { #expect(refusal.error.name == .accessDenied) }
    for refusal in [
      AccessRefusal.unidentifiedInNoGroup(Self.mail),
      .otherApplicationsGroup(Self.mail, group: "exe:/usr/bin/other"),
    ] {
      #expect(refusal.error.name == .notInAccessGroup)
      #expect(refusal.error.message.hasPrefix("Mail "))
    }
  }
}
