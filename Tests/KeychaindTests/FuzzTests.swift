// SPDX-License-Identifier: MIT
//
// Random calls against the real daemon (see CallFuzzer): it must answer every one (a reply or
// an error, never silence), stay up, and keep data the calls could not reach. The suite sends
// 2,000 calls; the full form is
//   KEYCHAIN_FUZZ_CALLS=100000 swift test --filter FuzzTests
// and KEYCHAIN_FUZZ_SEED=N replays a run.

import Foundation
import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

@Suite struct FuzzTests {
  static let base = "/org/freedesktop/secrets"

  private func call(
    _ connection: Connection, _ path: String, _ interface: InterfaceName, _ member: MemberName,
    _ body: [DBusValue] = []
  ) async throws -> [DBusValue] {
    try await connection.callSecretService(try ObjectPath(path), interface, member, body)
  }

  private func openSession(_ connection: Connection) async throws -> ObjectPath {
    try await call(
      connection, Self.base, SecretService.serviceInterface,
      SecretService.ServiceMethods.openSession.name,
      [.string("plain"), .variant(.string(""))])[1].objectPath!
  }

  /// A collection made with gnome-keyring's CreateWithMasterPassword (no prompt needed).
  private func createCollection(
    _ connection: Connection, _ session: ObjectPath, label: String, password: String
  ) async throws -> ObjectPath {
    try await call(
      connection, Self.base, SecretService.gnomeInternalInterface,
      SecretService.GnomeKeyringMethods.createWithMasterPassword.name,
      [
        ["org.freedesktop.Secret.Collection.Label": DBusValue.string(label)].dbusValue,
        secret(session, password),
      ])[0].objectPath!
  }

  private func secret(_ session: ObjectPath, _ text: String) -> DBusValue {
    Secret(session: session, parameters: [], value: Array(text.utf8), contentType: "text/plain")
      .dbusValue
  }

  @Test(.createsKeyringsProtectAsksAbout) func everyRandomCallIsAnsweredAndUnreachableDataSurvives()
    async throws
  {
    let environment = ProcessInfo.processInfo.environment
    let calls = environment["KEYCHAIN_FUZZ_CALLS"].flatMap(Int.init) ?? 2_000
    let seed = environment["KEYCHAIN_FUZZ_SEED"].flatMap(UInt64.init) ?? .random(in: 0...UInt64.max)
    let daemon = try await DaemonProcess()

    // A canary the calls cannot name: its own collection and item, paths kept out of the pool.
    let keeper = try await daemon.bus.connect()
    let keeperSession = try await openSession(keeper)
    let canary = try await createCollection(
      keeper, keeperSession, label: "canary", password: "canary password")
    let canaryItem = try await call(
      keeper, canary.rawValue, SecretService.collectionInterface,
      SecretService.CollectionMethods.createItem.name,
      [
        ["org.freedesktop.Secret.Item.Label": DBusValue.string("canary")].dbusValue,
        secret(keeperSession, "canary secret"), .boolean(false),
      ])[0].objectPath!

    // Another connection's session and prompt, for the calls to try to use.
    let other = try await daemon.bus.connect()
    let otherSession = try await openSession(other)
    let locked = try await createCollection(other, otherSession, label: "locked", password: "pw")
    _ = try await call(
      other, Self.base, SecretService.serviceInterface, SecretService.ServiceMethods.lock.name,
      [[locked].dbusValue])
    let otherPrompt = try await call(
      other, Self.base, SecretService.serviceInterface, SecretService.ServiceMethods.unlock.name,
      [[locked].dbusValue])[1]
      .objectPath!

    let fuzz = try await daemon.bus.connect()
    let ownSession = try await openSession(fuzz)
    let item = try await call(
      fuzz, Self.base + "/aliases/default", SecretService.collectionInterface,
      SecretService.CollectionMethods.createItem.name,
      [
        ["org.freedesktop.Secret.Item.Attributes": ["fuzz": "1"].dbusValue].dbusValue,
        secret(ownSession, "s"), .boolean(false),
      ])[0].objectPath!
    let paths: [ObjectPath] =
      try [
        Self.base, Self.base + "/aliases/default", Self.base + "/aliases/session",
        Self.base + "/collection/login", Self.base + "/collection/session",
        Self.base + "/collection/nope", Self.base + "/collection/login/99999",
        Self.base + "/session/nope", Self.base + "/prompt/p999", "/", "/org/example",
      ].map { try ObjectPath($0) } + [item, ownSession, otherSession, otherPrompt, locked]
    let methods = try await CallFuzzer.declaredMethods(
      at: [paths[0], paths[3], paths[4], item, ownSession, otherPrompt], via: fuzz)
    #expect(Set(methods.map(\.interface)).count >= 6, "every interface is fuzzed: \(methods.count)")
    var fuzzer = CallFuzzer(
      seed: seed, methods: methods, paths: paths,
      strings: [
        "plain", "dh-ietf1024-sha256-aes128-cbc-pkcs7", "default", "login", "session", "text/plain",
        "org.freedesktop.Secret.Item.Label", "org.freedesktop.Secret.Item.Attributes",
        "org.freedesktop.Secret.Collection.Label", "Label", "Attributes", "Locked", "Items",
        "Collections", "Secret", "xdg:schema", "fuzz", "1",
      ])

    let unanswered: Set<ErrorName> = [
      .noReply, .timeout, .disconnected, .serviceUnknown, .nameHasNoOwner,
    ]
    var answered = 0
    var outcomes: [String: Int] = [:]
    for index in 0..<calls {
      let message = fuzzer.next()
      do {
        _ = try await fuzz.call(message, timeout: .seconds(20))
        answered += 1
        outcomes["reply", default: 0] += 1
      } catch let error where unanswered.contains(error.name) {
        Issue.record(
          "seed \(seed), call \(index) \(message.interface?.rawValue ?? "").\(message.member?.rawValue ?? "") at \(message.path?.rawValue ?? ""): \(error.name.rawValue)"
        )
        break
      } catch {
        answered += 1
        outcomes[error.name.rawValue, default: 0] += 1
      }
      if index % 500 == 0 { try #require(daemon.isRunning, "seed \(seed): keychaind died") }
    }
    #expect(answered == calls, "seed \(seed)")
    print("fuzz seed \(seed): \(outcomes.sorted { $0.value > $1.value })")
    // Well-typed calls get past the argument checks and succeed, not only fail.
    #expect(outcomes["reply", default: 0] > calls / 20, "\(outcomes)")
    #expect(daemon.isRunning, "seed \(seed)")
    // Every error answered is one its method declares.
    #expect(daemon.undeclaredErrors == [], "seed \(seed)")
    // A random LockService may have locked it (that is allowed); its data must survive.
    _ = try await call(
      keeper, Self.base, SecretService.gnomeInternalInterface,
      SecretService.GnomeKeyringMethods.unlockWithMasterPassword.name,
      [.objectPath(canary), secret(keeperSession, "canary password")])
    let kept = try Secret(
      dbusValue: try await call(
        keeper, canaryItem.rawValue, SecretService.itemInterface,
        SecretService.ItemMethods.getSecret.name,
        [.objectPath(keeperSession)])[0])
    #expect(kept.value == Array("canary secret".utf8), "seed \(seed)")
    _ = daemon.terminate()
  }
}
