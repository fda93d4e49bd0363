// SPDX-License-Identifier: MIT
//
// keychainctl's times in other languages' environments. The program carries ICU's English data
// only (Sources/CKeychainICUData). Foundation formats for en_001 whatever LANG says, so nothing
// it prints may change: a filter that dropped en_001 would print root's "2026 M11 29 03:14".

import Foundation
import KeychainTesting
import Testing

struct LocaleTests {
  /// Environments whose ICU data would print other digits (Arabic, Persian), another calendar
  /// (Thai Buddhist: 2569 for 2026) or another order, beside plain C.
  static let languages = [
    "C.UTF-8", "en_US.UTF-8", "de_DE.UTF-8", "th_TH.UTF-8", "ar_EG.UTF-8", "fa_IR.UTF-8",
    "ja_JP.UTF-8", "tr_TR.UTF-8",
  ]

  @Test func timesPrintTheSameInEveryLanguage() async throws {
    let daemon = try await DaemonProcess(password: "pw")
    try await ControlSocketTests.waitForSocket(daemon)
    let stored = try daemon.run(
      KeychainctlTests.keychainctl, ["store", "--label=Mail", "app", "mail"],
      stdin: Array("s3cret".utf8))
    #expect(stored.status == 0, "\(stored.stderr)")

    var searches: [String: String] = [:]
    for language in Self.languages {
      let locale = ["LANG": language, "LC_ALL": language]
      let search = try daemon.run(
        KeychainctlTests.keychainctl, ["search", "app", "mail"], environment: locale)
      #expect(search.status == 0, "\(language): \(search.stderr)")
      searches[language] = search.stdout
      let doctor = try daemon.run(
        KeychainctlTests.keychainctl, ["doctor", "--pam-dir", daemon.home.path],
        environment: locale)
      let lines = doctor.stdout.split(separator: "\n")
      let unlock = lines.first { $0.contains("login unlock at this boot") }
      #expect(
        unlock?.contains(#/ at \d{1,2} [A-Z][a-z]{2} \d{4} at \d{1,2}:\d\d\s[AP]M by /#) == true,
        "\(language): \(doctor.stdout)")
    }
    let plain = try #require(searches["C.UTF-8"])
    #expect(plain.contains(#/\ncreated = \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n/#), "\(plain)")
    #expect(plain.contains("secret = s3cret\n"))
    for (language, output) in searches {
      #expect(output == plain, "\(language) prints otherwise: \(output)")
    }
    _ = daemon.terminate()
  }
}
