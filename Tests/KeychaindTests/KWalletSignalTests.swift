// SPDX-License-Identifier: MIT
//
// KWallet's signals and delayed opens: a client's `KWallet::Wallet` learns of changes, closed
// wallets and finished `openAsync` calls only from signals, sent from every path it may call.
// A locked wallet opens through one password dialog however many callers wait for it.

import KWalletProtocol
import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Synchronization
import Testing

/// KWallet's signals as "member(arguments) path", in order of arrival: from the in-memory
/// transport, or from a watcher on the bus.
private final class KWalletSignals: Sendable {
  private final class Arrived: Sendable {
    let messages = Mutex<[Message]>([])
  }
  private let fixture: ServiceFixture
  private let arrived = Arrived()
  private let task: Task<Void, Never>?
  private let watcher: Connection?

  init(_ fixture: ServiceFixture) async throws {
    self.fixture = fixture
    if let transport = fixture.transport {
      await fixture.settle()
      _ = transport.takeSent()
      (task, watcher) = (nil, nil)
      return
    }
    let watcher = try await fixture.bus().connect()
    let stream = try await watcher.signals(matching: MatchRule(interface: KWallet.interface))
    let arrived = arrived
    task = Task {
      for await message in stream { arrived.messages.withLock { $0.append(message) } }
    }
    self.watcher = watcher
  }

  deinit { task?.cancel() }

  /// What arrived since the last call, once `count` signals have (a bound of 10 s, not a
  /// speed check).
  func take(_ count: Int) async throws -> [String] {
    for _ in 0..<500 {
      // In memory, a call's after-reply work is queued just after its reply reaches the test.
      if let transport = fixture.transport {
        await fixture.settle()
        let sent = transport.takeSent().filter { $0.interface == KWallet.interface }
        arrived.messages.withLock { $0 += sent }
      }
      if arrived.messages.withLock({ $0.count }) >= count { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    return arrived.messages.withLock { messages in
      defer { messages = [] }
      return messages.map(Self.describe)
    }
  }

  static func describe(_ message: Message) -> String {
    let arguments = message.body.map { value -> String in
      switch value {
      case .string(let text): "\"\(text)\""
      // A handle is random: "h".
      case .int32(let number): number > 1000 ? "h" : "\(number)"
      default: "\(value)"
      }
    }
    return
      "\(message.member?.rawValue ?? "?")(\(arguments.joined(separator: ","))) \(message.path?.rawValue ?? "?")"
  }
}

@Suite struct KWalletSignalTests {
  typealias Methods = KWallet.Methods

  /// Each signal once from each path.
  private func both(_ signal: String) -> [String] {
    [signal + " /modules/kwalletd5", signal + " /modules/kwalletd6"]
  }

  @Test(arguments: [ServiceFixture.Depth.inMemory, .privateBus])
  func changesThroughEitherAPIAreSignalled(_ depth: ServiceFixture.Depth) async throws {
    let fixture = try await ServiceFixture(depth, kwallet: true)
    let signals = try await KWalletSignals(fixture)
    let handle = try await fixture.openKDEWallet()
    // Every open ends with this; a synchronous one's transaction id is 0 (as kwalletd5's).
    #expect(try await signals.take(2) == both("walletAsyncOpened(0,h)"))
    #expect(try await fixture.kwallet(Methods.writePassword, handle, "F", "k", "v", "app") == 0)
    // Under the name the wallet was opened by, as kwalletd5 names it.
    let updated = both("folderUpdated(\"kdewallet\",\"F\")")
    let written = try await signals.take(2)
    #expect(written == updated, "\(written)")
    #expect(try await fixture.kwallet(Methods.createFolder, handle, "G", "app") == true)
    #expect(try await signals.take(2) == both("folderListUpdated(\"kdewallet\")"))
    // A Secret Service client deletes the entry: KWallet's clients hear of it.
    let found = try await fixture.call(
      ServiceFixture.service, SecretService.serviceInterface, "SearchItems",
      [["server": "F", "user": "k"].dbusValue])
    let path = try #require(try [ObjectPath](dbusValue: found[0]).first)
    _ = try await fixture.call(path, SecretService.itemInterface, "Delete")
    let deleted = try await signals.take(2)
    #expect(deleted == updated, "\(deleted)")
    // A lock closes the handle.
    _ = try await fixture.call(
      ServiceFixture.service, SecretService.serviceInterface, "Lock",
      [[ServiceFixture.login].dbusValue])
    let closed = try await signals.take(8)
    #expect(
      closed
        == both("walletClosed(\"kdewallet\")") + both("walletClosedId(h)") + both("walletClosed(h)")
        + both("allWalletsClosed()"),
      "\(closed)")
    // Unlocked again, with no handle open: under the name clients open it by.
    try await fixture.unlockLogin()
    #expect(try await signals.take(2) == both("walletOpened(\"kdewallet\")"))
  }

  @Test(arguments: [ServiceFixture.Depth.inMemory, .privateBus])
  func openAsyncAlwaysEndsWithASignal(_ depth: ServiceFixture.Depth) async throws {
    let fixture = try await ServiceFixture(depth, kwallet: true)
    let signals = try await KWalletSignals(fixture)
    let transaction = try await fixture.kwallet(Methods.openAsync, "kdewallet", 0, "app", true)
    #expect(try await signals.take(2) == both("walletAsyncOpened(\(transaction),h)"))
    // A wallet that cannot be opened (no dialog program to make it with): -1, not silence.
    let failing = try await fixture.kwallet(Methods.openAsync, "nowhere", 0, "app", true)
    #expect(failing != transaction)
    #expect(try await signals.take(2) == both("walletAsyncOpened(\(failing),-1)"))
  }

  @Test(arguments: [ServiceFixture.Depth.privateBus, .daemon])
  func aLockedWalletOpensThroughOneDialog(_ depth: ServiceFixture.Depth) async throws {
    let pinentry = try ScriptedPinentry(answers: [.gate(ServiceFixture.password), .cancel])
    let fixture = try await ServiceFixture(depth, pinentry: pinentry.program, kwallet: true)
    _ = try await fixture.call(
      ServiceFixture.service, SecretService.serviceInterface, "Lock",
      [[ServiceFixture.login].dbusValue])
    let other = try await fixture.newCaller()
    // Two callers open the locked wallet at once; one dialog, and both get a handle.
    async let first = fixture.openKDEWallet()
    try await pinentry.waitFor("GATED")
    async let second = fixture.openKDEWallet("second", from: other)
    // The dialog does not hold other callers.
    #expect(try await fixture.kwallet(Methods.isEnabled, from: other) == true)
    try pinentry.release()
    let handles = try await (first, second)
    #expect(handles.0 > 0 && handles.1 > 0)
    #expect(pinentry.runs == 1)
    // Cancelled: -1.
    _ = try await fixture.call(
      ServiceFixture.service, SecretService.serviceInterface, "Lock",
      [[ServiceFixture.login].dbusValue])
    #expect(try await fixture.openKDEWallet() == -1)
    #expect(pinentry.runs == 2)
  }
}
