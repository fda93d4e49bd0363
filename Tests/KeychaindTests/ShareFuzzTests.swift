// SPDX-License-Identifier: MIT
//
// A hostile client on a share's bus: random calls of every method keychaind declares on the
// session bus (its own Import, Access, Slots and Shares interfaces, gnome-keyring's included),
// at the shared item, an item outside the share and the collections. Each is answered; none
// outside the Secret Service's reads succeeds; the daemon stays up, and nothing outside the
// share is read, changed or locked. KEYCHAIN_SHARE_FUZZ_CALLS (1,000) and KEYCHAIN_FUZZ_SEED.

import Foundation
import KeychainDBus
import KeychainTesting
import Testing

@Suite struct ShareFuzzTests {
  static let base = "/org/freedesktop/secrets"

  @Test func randomCallsThroughAShareReachNothingElse() async throws {
    let environment = ProcessInfo.processInfo.environment
    // Its own count: CI's 20,000 for FuzzTests made this the suite's longest test.
    let calls = environment["KEYCHAIN_SHARE_FUZZ_CALLS"].flatMap(Int.init) ?? 1_000
    let seed = environment["KEYCHAIN_FUZZ_SEED"].flatMap(UInt64.init) ?? .random(in: 0...UInt64.max)
    let daemon = try await DaemonProcess()
    let ctl = { (arguments: [String], stdin: String) in
      try daemon.run(Binaries.keychainctl, arguments, stdin: Array(stdin.utf8))
    }
    #expect(try ctl(["store", "--label=Shared", "service", "shared"], "tok-shared").status == 0)
    #expect(try ctl(["store", "--label=Private", "service", "private"], "tok-private").status == 0)
    let made = try ctl(["share", "--items", "service=shared", "--read-only"], "")
    try #require(made.status == 0, "\(made.stderr)")
    let address = made.stdout.trimmingCharacters(in: .newlines)

    let paths = try [
      Self.base, Self.base + "/aliases/default", Self.base + "/collection/login",
      Self.base + "/collection/login/1", Self.base + "/collection/login/2",
      Self.base + "/collection/session", Self.base + "/aliases/default/2", "/",
    ].map { try ObjectPath($0) }
    // Everything keychaind answers on the session bus, sent to the share.
    let host = try await daemon.bus.connect()
    let methods = try await CallFuzzer.declaredMethods(at: Array(paths.prefix(4)), via: host)
    #expect(Set(methods.map(\.interface)).count >= 10, "\(Set(methods.map(\.interface)))")
    var fuzzer = CallFuzzer(
      seed: seed, methods: methods, paths: paths,
      strings: [
        "plain", "default", "login", "session", "text/plain", "org.freedesktop.Secret.Item",
        "Label", "Attributes", "service", "shared", "private", "1", "2",
      ])
    let share = try await Connection.connect(to: address)
    let reading: Set<String> = [
      "org.freedesktop.Secret.Service", "org.freedesktop.Secret.Collection",
      "org.freedesktop.Secret.Item", "org.freedesktop.Secret.Session",
      "org.freedesktop.Secret.Prompt", "org.freedesktop.DBus.Properties",
      "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer",
    ]
    var outcomes: [String: Int] = [:]
    for index in 0..<calls {
      let message = fuzzer.next()
      let name = "\(message.interface?.rawValue ?? "").\(message.member?.rawValue ?? "")"
      do {
        _ = try await share.call(message, timeout: .seconds(20))
        outcomes["reply", default: 0] += 1
        #expect(
          reading.contains(message.interface?.rawValue ?? ""), "seed \(seed): \(name) succeeded")
      } catch let error
        where [.noReply, .timeout, .disconnected, .serviceUnknown, .nameHasNoOwner].contains(
          error.name)
      {
        Issue.record("seed \(seed), call \(index) \(name): \(error.name.rawValue)")
        break
      } catch {
        outcomes[error.name.rawValue, default: 0] += 1
      }
    }
    print("share fuzz seed \(seed): \(outcomes.sorted { $0.value > $1.value })")
    #expect(outcomes["reply", default: 0] > 0, "\(outcomes)")
    #expect(daemon.isRunning, "seed \(seed)")
    await share.close()

    // Nothing outside the share was read or changed, and the keyring is still open.
    #expect(try ctl(["lookup", "service", "private"], "").stdout == "tok-private")
    #expect(try ctl(["lookup", "service", "shared"], "").stdout == "tok-shared")
    let audit = try ctl(["audit", "show"], "").stdout.split(separator: "\n")
    #expect(!audit.contains { $0.contains("by share:") && !$0.contains("login/1 ") }, "\(audit)")
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }
}
