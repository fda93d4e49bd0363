// SPDX-License-Identifier: MIT
//
// Conversations with the bus daemon itself: signal subscriptions, name ownership, peers.
// Every one is an asynchronous call, never a blocking one, so the loop keeps serving.

import CKeychainDBus

/// What happened to a name this connection asked for.
public enum NameEvent: Sendable, Hashable {
  /// The connection became the primary owner.
  case acquired(BusName)
  /// The connection lost the name, for example to a `--replace` of another process.
  case lost(BusName)
}

/// How to ask for a well-known name (`RequestName` flags).
public struct NameRequestOptions: OptionSet, Sendable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }
  /// Let a later requester with `replaceExisting` take the name over.
  public static let allowReplacement = NameRequestOptions(rawValue: 0x1)
  /// Take the name from its owner if the owner allowed replacement.
  public static let replaceExisting = NameRequestOptions(rawValue: 0x2)
  /// Fail instead of waiting in the queue.
  public static let doNotQueue = NameRequestOptions(rawValue: 0x4)
}

/// The answer to `RequestName`.
public enum NameRequestResult: UInt32, Sendable {
  case primaryOwner = 1
  case inQueue = 2
  case exists = 3
  case alreadyOwner = 4
}

/// One signal subscription: the rule and where its messages go.
struct Subscription {
  let rule: MatchRule
  let continuation: AsyncStream<Message>.Continuation
}

extension Connection {
  /// Calls a method of the bus daemon.
  func callBus(_ member: MemberName, _ body: [DBusValue]) async throws(DBusError) -> [DBusValue] {
    try await call(
      .methodCall(
        destination: .bus, path: "/org/freedesktop/DBus", interface: .bus,
        member: member, body: body)
    ).body
  }

  /// Subscribes to signals matching `rule`. The stream ends when the connection closes;
  /// ending the iteration removes the rule from the bus.
  public func signals(matching rule: MatchRule) async throws(DBusError) -> AsyncStream<Message> {
    _ = try await callBus("AddMatch", [.string(rule.description)])
    let id = nextSubscriptionID
    nextSubscriptionID += 1
    let (stream, continuation) = AsyncStream<Message>.makeStream()
    continuation.onTermination = { [weak self] _ in
      Task { await self?.unsubscribe(id) }
    }
    subscriptions[id] = Subscription(rule: rule, continuation: continuation)
    return stream
  }

  private func unsubscribe(_ id: UInt64) async {
    guard let subscription = subscriptions.removeValue(forKey: id), isOpen else { return }
    _ = try? await callBus("RemoveMatch", [.string(subscription.rule.description)])
  }

  /// Hands a received signal to every matching subscription; runs on the loop thread.
  func deliverSignal(_ message: Message) {
    if message.sender == .bus, message.interface == .bus, message.destination == uniqueName,
      let name = message.body.first?.string.flatMap(BusName.init(validating:)), !name.isUnique
    {
      if message.member == "NameAcquired" { nameEventsContinuation.yield(.acquired(name)) }
      if message.member == "NameLost" { nameEventsContinuation.yield(.lost(name)) }
    }
    if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" {
      // After `close()` libdbus still delivers this: then it is no news (keychainctl's
      // commands close their connection, and printed this line on the way out).
      if isOpen { logger.info("D-Bus connection closed by the bus") }
      close()
      nameEventsContinuation.finish()
      return
    }
    for subscription in subscriptions.values where subscription.rule.matches(message) {
      subscription.continuation.yield(message)
    }
  }

  // MARK: Names

  /// Asks the bus for a well-known name. Request it only once the objects behind it are ready.
  public func requestName(_ name: BusName, options: NameRequestOptions = [])
    async throws(DBusError) -> NameRequestResult
  {
    let reply = try await callBus(
      "RequestName", [.string(name.rawValue), .uint32(options.rawValue)])
    guard case .uint32(let code)? = reply.first, let result = NameRequestResult(rawValue: code)
    else { throw DBusError(.failed, "unexpected RequestName reply") }
    return result
  }

  /// Gives a well-known name back to the bus.
  public func releaseName(_ name: BusName) async throws(DBusError) {
    _ = try await callBus("ReleaseName", [.string(name.rawValue)])
  }

  /// The unique name of the current owner of `name`, or nil if nobody owns it.
  public func nameOwner(_ name: BusName) async throws(DBusError) -> BusName? {
    do {
      let reply = try await callBus("GetNameOwner", [.string(name.rawValue)])
      return reply.first?.string.flatMap(BusName.init(validating:))
    } catch  where error.name == .nameHasNoOwner {
      return nil
    }
  }

  // MARK: Peers

  /// The uid and pid of the connection `peer`, from `GetConnectionCredentials`, and the start
  /// time of the process with that pid.
  public func credentials(of peer: BusName) async throws(DBusError) -> PeerCredentials {
    let reply = try await callBus("GetConnectionCredentials", [.string(peer.rawValue)])
    let fields = try [String: DBusValue](dbusValue: reply.first ?? .structure([]))
    var credentials = PeerCredentials()
    if case .uint32(let uid)? = fields["UnixUserID"] { credentials.uid = uid }
    if case .uint32(let pid)? = fields["ProcessID"] {
      credentials.pid = pid
      credentials.processStartTime = PeerCredentials.startTime(ofProcess: pid)
    }
    return credentials
  }

  /// Unique names of connections as they arrive on the bus, from `NameOwnerChanged`.
  public func peerArrivals() async throws(DBusError) -> AsyncStream<BusName> {
    try await uniqueNames(whereArgumentIsEmpty: 1)
  }

  /// Unique names of connections as they leave the bus, from `NameOwnerChanged`. Subscribe
  /// before handing out per-caller state, so that no departure is missed.
  public func peerDisconnections() async throws(DBusError) -> AsyncStream<BusName> {
    try await uniqueNames(whereArgumentIsEmpty: 2)
  }

  /// The names of `NameOwnerChanged(name, old owner, new owner)` signals whose argument `index`
  /// is empty (1: the name is new, 2: it has gone), unique names only: a well-known name
  /// changing hands is no peer arriving or leaving.
  private func uniqueNames(whereArgumentIsEmpty index: Int) async throws(DBusError)
    -> AsyncStream<BusName>
  {
    let changes = try await signals(
      matching: MatchRule(
        sender: .bus, interface: .bus, member: "NameOwnerChanged", arguments: [index: ""]))
    return AsyncStream { continuation in
      let task = Task {
        for await change in changes {
          guard let name = change.body.first?.string, name.hasPrefix(":"),
            let peer = BusName(validating: name)
          else { continue }
          continuation.yield(peer)
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}
