// SPDX-License-Identifier: MIT
//
// A session with GNOME's system prompter (org.gnome.keyring.SystemPrompter: GNOME Shell, or
// gcr's gcr-prompter elsewhere), the dialogs gnome-keyring shows. On a bus connection of its
// own, keychaind exports a callback object (org.gnome.keyring.internal.Prompter.Callback) and
// calls BeginPrompting; the prompter calls PromptReady when it is this session's turn, then once
// per PerformPrompt with "yes" or "no", the properties that changed (a check box's
// `choice-chosen`) and its half of the secret exchange, and PromptDone when it stops. Closing
// the connection ends the session: the prompter closes the dialog of a caller that left.
//
// Nothing waits for ever: the prompter leaving the bus, or not giving this session its turn
// within `turnTimeout`, ends the session with an error; only the person's answer has no time
// limit, as with gnome-keyring.

import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainPrompt
import Synchronization

/// One session with the system prompter (see the top of this file).
final class SystemPrompt: Sendable {
  static let name: BusName = "org.gnome.keyring.SystemPrompter"
  static let path: ObjectPath = "/org/gnome/keyring/Prompter"
  static let interface: InterfaceName = "org.gnome.keyring.internal.Prompter"
  static let callbackInterface: InterfaceName = "org.gnome.keyring.internal.Prompter.Callback"
  /// How long the prompter may take to give this session its turn.
  static let turnTimeout = Duration.seconds(60)
  private static let counter = Atomic<Int>(0)

  /// What the prompter said.
  enum Event: Sendable {
    case ready(reply: String, properties: [String: DBusValue], exchange: String)
    case done
    case vanished
  }

  /// What one prompt came back with.
  struct Answer: Sendable {
    /// Whether the person continued ("yes"), rather than cancelled.
    var accepted: Bool
    var properties: [String: DBusValue]
    var password: SecureBytes?
  }

  private let connection: Connection
  private let callback: ObjectPath
  private let events: EventQueue
  private let exchange: Mutex<SecretExchange>

  private init(
    connection: Connection, callback: ObjectPath, events: EventQueue, exchange: SecretExchange
  ) {
    self.connection = connection
    self.callback = callback
    self.events = events
    self.exchange = Mutex(exchange)
  }

  /// Begins a session on the bus at `address` (the session bus when nil) and waits for its
  /// turn; `cannotStart` when no prompter answers.
  static func begin(address: String? = nil) async throws(PinentryError) -> SystemPrompt {
    let connection: Connection
    do {
      connection =
        if let address { try await Connection.connect(to: address) } else {
          try await Connection.sessionBus()
        }
    } catch {
      throw .cannotStart("no session bus for the system prompter: \(error.message)")
    }
    let events = EventQueue()
    let callback = ObjectPath(
      unchecked: "/org/keychain_linux/Prompt/p\(counter.add(1, ordering: .relaxed).newValue)")
    do {
      try await connection.register(Callback(events: events), at: callback, subtree: false)
      let owners = try await connection.signals(
        matching: MatchRule(
          sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
          member: "NameOwnerChanged", arguments: [0: name.rawValue]))
      Task {
        for await change in owners where change.body.count == 3 {
          if case .string(let owner) = change.body[2], owner.isEmpty {
            events.push(.vanished)
          }
        }
      }
      let exchange = try SecretExchange()
      let prompt = SystemPrompt(
        connection: connection, callback: callback, events: events, exchange: exchange)
      // BeginPrompting may start gcr-prompter (D-Bus activation); the calls after it may not.
      _ = try await connection.call(
        .methodCall(
          destination: name, path: path, interface: interface, member: "BeginPrompting",
          body: [.objectPath(callback)]))
      guard case .ready(_, _, let first) = try await prompt.next(within: turnTimeout) else {
        throw PinentryError.failed("the system prompter ended the session before it began")
      }
      _ = try prompt.exchange.withLock { exchange throws(PinentryError) in
        try exchange.receive(first)
      }
      return prompt
    } catch let error as PinentryError {
      await connection.close()
      throw error
    } catch let error as DBusError {
      await connection.close()
      throw .cannotStart("the system prompter does not answer: \(error.message)")
    } catch {
      await connection.close()
      throw .failed("\(error)")
    }
  }

  /// Shows one prompt, `password` or `confirm`, with the properties that changed since the
  /// last one, and waits for the person.
  func perform(_ type: String, _ properties: [String: DBusValue]) async throws(PinentryError)
    -> Answer
  {
    let offer = exchange.withLock { $0.offer }
    do {
      var message = Message.methodCall(
        destination: Self.name, path: Self.path, interface: Self.interface,
        member: "PerformPrompt",
        body: [
          .objectPath(callback), .string(type),
          .dictionary(
            key: .string, value: .variant,
            properties.sorted { $0.key < $1.key }.map {
              DBusDictEntry(.string($0.key), .variant($0.value))
            }),
          .string(offer),
        ])
      message.autoStart = false
      _ = try await connection.call(message)
    } catch {
      throw .failed("the system prompter refused the prompt: \(error.message)")
    }
    switch try await next(within: nil) {
    case .ready(let reply, let changed, let exchangeText):
      guard reply == "yes" else { return Answer(accepted: false, properties: changed) }
      let password = try exchange.withLock { exchange throws(PinentryError) in
        try exchange.receive(exchangeText)
      }
      return Answer(accepted: true, properties: changed, password: password)
    case .done:
      throw .cancelled
    case .vanished:
      throw .failed("the system prompter left the bus")
    }
  }

  /// The next event, within `timeout` if one is given; cancelled when the session was closed.
  private func next(within timeout: Duration?) async throws(PinentryError) -> Event {
    switch await events.next(within: timeout) {
    case .event(let event): return event
    case .closed: throw .cancelled
    case .timedOut: throw .failed("the system prompter did not give this dialog its turn")
    }
  }

  /// Ends the session: StopPrompting, and the connection closed (which also closes a dialog
  /// still showing).
  func close() async {
    var message = Message.methodCall(
      destination: Self.name, path: Self.path, interface: Self.interface,
      member: "StopPrompting", body: [.objectPath(callback)])
    message.autoStart = false
    _ = try? await connection.call(message, timeout: .seconds(5))
    events.close()
    await connection.close()
  }

  /// Cancels a prompt in progress from another thread (Dismiss, the caller gone): the session's
  /// wait ends at once, and `close` ends the rest.
  func cancel() { events.close() }

  /// The callback object the prompter calls.
  private struct Callback: MethodCallHandler {
    let events: EventQueue

    func handle(_ call: Message, responder: Responder) {
      switch call.member?.rawValue {
      case "PromptReady":
        guard call.body.count == 3, case .string(let reply) = call.body[0],
          case .string(let exchange) = call.body[2]
        else {
          return responder.fail(DBusError(.invalidArgs, "PromptReady takes (sa{sv}s)"))
        }
        let properties = (try? [String: DBusValue](dbusValue: call.body[1])) ?? [:]
        events.push(
          .ready(reply: reply, properties: properties.mapValues(Self.unwrap), exchange: exchange))
        responder.reply()
      case "PromptDone":
        events.push(.done)
        responder.reply()
      default:
        responder.fail(DBusError(.unknownMethod, "no method \(call.member?.rawValue ?? "")"))
      }
    }

    /// The prompter wraps what it sends back twice (a variant in a variant).
    static func unwrap(_ value: DBusValue) -> DBusValue {
      if case .variant(let inner) = value { return unwrap(inner) }
      return value
    }
  }
}

/// Events waiting to be taken, one taker at a time, with a time limit on the wait.
final class EventQueue: Sendable {
  enum Outcome: Sendable {
    case event(SystemPrompt.Event)
    case closed
    case timedOut
  }

  private struct State {
    var events: [SystemPrompt.Event] = []
    var closed = false
    var waiter: (id: Int, continuation: CheckedContinuation<Outcome, Never>)?
    var nextID = 0
  }
  private let state = Mutex(State())

  /// Hands `event` to the taker waiting, or keeps it for the next one.
  func push(_ event: SystemPrompt.Event) {
    let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
      guard !state.closed else { return nil }
      guard let waiter = state.waiter else {
        state.events.append(event)
        return nil
      }
      state.waiter = nil
      return waiter.continuation
    }
    waiter?.resume(returning: .event(event))
  }

  /// Ends every wait, now and later.
  func close() {
    let waiter = state.withLock { state in
      state.closed = true
      defer { state.waiter = nil }
      return state.waiter?.continuation
    }
    waiter?.resume(returning: .closed)
  }

  /// The next event; `timedOut` when none comes within `timeout` (if given).
  func next(within timeout: Duration?) async -> Outcome {
    await withCheckedContinuation { continuation in
      let (ready, id) = state.withLock { state -> (Outcome?, Int) in
        if !state.events.isEmpty { return (.event(state.events.removeFirst()), 0) }
        if state.closed { return (.closed, 0) }
        state.nextID += 1
        state.waiter = (state.nextID, continuation)
        return (nil, state.nextID)
      }
      if let ready { return continuation.resume(returning: ready) }
      guard let timeout else { return }
      Task {
        try? await Task.sleep(for: timeout)
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
          guard let waiter = state.waiter, waiter.id == id else { return nil }
          state.waiter = nil
          return waiter.continuation
        }
        waiter?.resume(returning: .timedOut)
      }
    }
  }
}
