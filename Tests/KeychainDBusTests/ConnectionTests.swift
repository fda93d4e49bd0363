// SPDX-License-Identifier: MIT
//
// The connection and the object server on a private dbus-daemon.

import KeychainDBus
import KeychainTesting
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Helpers for calling the demo service from its client connection.
extension DemoBus {
  /// A call with a bound of two minutes, not libdbus's 25 s: a loaded CI machine once stalled
  /// every test for longer than that, and a deferred reply timed out (a bound, not a speed check).
  func call(
    _ member: MemberName, _ body: [DBusValue] = [],
    interface: InterfaceName? = DemoService.interface,
    path: ObjectPath = DemoService.path
  ) async throws(DBusError) -> [DBusValue] {
    try await client.call(
      .methodCall(
        destination: DemoService.name, path: path, interface: interface,
        member: member, body: body),
      timeout: .seconds(120)
    ).body
  }

  /// The error name a call fails with, or nil if it succeeds.
  func errorName(
    _ member: MemberName, _ body: [DBusValue] = [],
    interface: InterfaceName? = DemoService.interface,
    path: ObjectPath = DemoService.path
  ) async -> ErrorName? {
    do {
      _ = try await call(member, body, interface: interface, path: path)
      return nil
    } catch {
      return error.name
    }
  }
}

/// Answers nothing: keeps every responder, or drops every responder.
final class SilentHandler: MethodCallHandler {
  let keep: Bool
  let kept = Mutex<[Responder]>([])
  init(keep: Bool) { self.keep = keep }
  func handle(_ call: Message, responder: Responder) {
    if keep { kept.withLock { $0.append(responder) } }
  }
}

@Suite struct ConnectionTests {
  @Test func methodCallsAreAnswered() async throws {
    let f = try await DemoBus()
    #expect(try await f.call("Hello", [.string("world")]) == [.string("Hello, world!")])
    // Without an interface the member is looked up across the object's interfaces.
    #expect(try await f.call("Hello", [.string("x")], interface: nil) == [.string("Hello, x!")])
    #expect(try await f.call("Caller") == [.string(f.client.uniqueName.rawValue)])
    let nested = DBusValue.structure([.bytes([1, 2, 3]), ["k": "v"].dbusValue])
    #expect(try await f.call("Echo", [.variant(nested)]) == [.variant(nested)])
  }

  @Test func deferredRepliesDoNotBlockOtherCalls() async throws {
    let f = try await DemoBus()
    async let waiting = f.call("Wait")
    // Until the service holds the Wait call, with no reply sent…
    while try await f.call("PendingWaits") != [.uint32(1)] { await Task.yield() }
    // …other calls are still answered: the deferred reply blocks nothing.
    #expect(try await f.call("Hello", [.string("meanwhile")]) == [.string("Hello, meanwhile!")])
    #expect(try await f.call("PendingWaits") == [.uint32(1)])
    _ = try await f.call("Release")
    #expect(try await waiting == [.string("released")])
  }

  @Test func failuresCarryTheirErrorNames() async throws {
    let f = try await DemoBus()
    #expect(
      await f.errorName("Fail", [.string("org.freedesktop.Secret.Error.IsLocked")])
        == "org.freedesktop.Secret.Error.IsLocked")
    #expect(await f.errorName("Nope") == .unknownMethod)
    #expect(await f.errorName("Hello", [.int32(1)]) == .invalidArgs)
    #expect(await f.errorName("Hello", []) == .invalidArgs)
    // Named as GDBus names them (see ObjectServer).
    #expect(
      await f.errorName("Hello", [.string("a")], interface: "org.example.Other")
        == .unknownMethod)
    #expect(
      await f.errorName("Hello", [.string("a")], path: "/org/example/Demo/nothing")
        == .unknownMethod)
    #expect(await f.errorName("Attributes", [["a": "b"].dbusValue]) == nil)
    // An error name that is not valid becomes InvalidArgs, never a crash in libdbus.
    #expect(await f.errorName("Fail", [.string("not a name")]) == .invalidArgs)
    // The server still serves.
    #expect(try await f.call("Hello", [.string("still")]) == [.string("Hello, still!")])
  }

  @Test func peerAndIntrospectionWorkOnEveryObject() async throws {
    let f = try await DemoBus()
    #expect(try await f.call("Ping", interface: .peer) == [])
    #expect(try await f.call("Ping", interface: .peer, path: "/anything/at/all") == [])
    let xml = try await f.call("Introspect", interface: .introspectable).first?.string ?? ""
    for needle in [
      "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Peer", "<node name=\"child\"/>",
      "<method name=\"Hello\">", "<signal name=\"Greeted\">",
      "<property name=\"Greeting\" type=\"s\" access=\"readwrite\"/>",
    ] {
      #expect(xml.contains(needle), "introspection lacks \(needle)")
    }
    let parent = try await f.call("Introspect", interface: .introspectable, path: "/org/example")
    #expect(parent.first?.string?.contains("<node name=\"Demo\"/>") == true)
  }

  @Test func propertiesCanBeReadWrittenAndAnnounced() async throws {
    let f = try await DemoBus()
    let changes = try await f.client.signals(
      matching: MatchRule(interface: .properties, member: "PropertiesChanged"))
    let iface = DBusValue.string(DemoService.interface.rawValue)
    #expect(
      try await f.call("Get", [iface, .string("Greeting")], interface: .properties) == [
        .variant(.string("Hello"))
      ])
    _ = try await f.call(
      "Set", [iface, .string("Greeting"), .variant(.string("Hi"))], interface: .properties)
    #expect(try await f.call("Hello", [.string("you")]) == [.string("Hi, you!")])
    var iterator = changes.makeAsyncIterator()
    let change = await iterator.next()
    #expect(change?.body.first == iface)
    let all = try await f.call("GetAll", [iface], interface: .properties)
    #expect(
      try [String: DBusValue](dbusValue: all[0]) == [
        "Greeting": .string("Hi"), "Version": .uint32(1),
      ])
    #expect(
      await f.errorName(
        "Set", [iface, .string("Version"), .variant(.uint32(2))], interface: .properties)
        == .invalidArgs)
    #expect(
      await f.errorName(
        "Set", [iface, .string("Greeting"), .variant(.uint32(2))], interface: .properties)
        == .invalidArgs)
    #expect(
      await f.errorName("Get", [iface, .string("Nope")], interface: .properties) == .invalidArgs
    )
    #expect(
      await f.errorName("Get", [.string("no.such.Iface"), .string("x")], interface: .properties)
        == .invalidArgs)
    #expect(await f.errorName("Get", [.string("x")], interface: .properties) == .invalidArgs)
  }

  @Test func signalsReachMatchingSubscribersOnly() async throws {
    let f = try await DemoBus()
    let greeted = try await f.client.signals(
      matching: MatchRule(
        sender: f.server.uniqueName, interface: DemoService.interface, member: "Greeted"))
    let other = try await f.client.signals(
      matching: MatchRule(interface: DemoService.interface, member: "Other"))
    _ = try await f.call("Emit", [.string("one")])
    _ = try await f.call("Emit", [.string("two")])
    var iterator = greeted.makeAsyncIterator()
    #expect(await iterator.next()?.body == [.string("one")])
    #expect(await iterator.next()?.body == [.string("two")])
    // Nothing went to the other subscription: closing ends its stream empty.
    await f.client.close()
    var none = other.makeAsyncIterator()
    #expect(await none.next() == nil)
  }

  @Test func nameOwnershipAndReplacement() async throws {
    let bus = try PrivateBus()
    let first = try await bus.connect()
    let second = try await bus.connect()
    let name: BusName = "org.example.Owned"
    #expect(
      try await first.requestName(name, options: [.allowReplacement, .doNotQueue]) == .primaryOwner)
    // Asking again answers alreadyOwner (and would reset the flags if they differed).
    #expect(
      try await first.requestName(name, options: [.allowReplacement, .doNotQueue]) == .alreadyOwner)
    #expect(try await second.requestName(name, options: [.doNotQueue]) == .exists)
    var events = first.nameEvents.makeAsyncIterator()
    #expect(await events.next() == .acquired(name))
    #expect(
      try await second.requestName(name, options: [.replaceExisting, .doNotQueue]) == .primaryOwner)
    #expect(await events.next() == .lost(name))
    #expect(try await first.nameOwner(name) == second.uniqueName)
    try await second.releaseName(name)
    #expect(try await first.nameOwner(name) == nil)
  }

  @Test func callersThatDisconnectAreReported() async throws {
    let f = try await DemoBus()
    let gone = try await f.server.peerDisconnections()
    let caller = try await f.bus.connect()
    let callerName = caller.uniqueName
    let credentials = try await f.server.credentials(of: callerName)
    #expect(credentials.uid == getuid() && credentials.pid == UInt32(getpid()))
    // The start time of this process, which tells it from a later one given the same pid.
    let ownStart = try #require(PeerCredentials.startTime(ofProcess: UInt32(getpid())))
    #expect(credentials.processStartTime == ownStart)
    await caller.close()
    var iterator = gone.makeAsyncIterator()
    #expect(await iterator.next() == callerName)
  }

  @Test func manyConcurrentClientsAllGetTheirOwnAnswers() async throws {
    let f = try await DemoBus()
    try await withThrowingTaskGroup(of: Int.self) { group in
      for clientIndex in 0..<32 {
        group.addTask {
          let client = try await f.bus.connect()
          for callIndex in 0..<40 {
            let name = "c\(clientIndex)-\(callIndex)"
            let reply = try await client.call(
              .methodCall(
                destination: DemoService.name, path: DemoService.path,
                interface: DemoService.interface, member: "Hello", body: [.string(name)]))
            #expect(reply.body == [.string("Hello, \(name)!")])
          }
          return 40
        }
      }
      var total = 0
      for try await count in group { total += count }
      #expect(total == 32 * 40)
    }
  }

  @Test func unansweredCallsTimeOutAndDroppedOnesFail() async throws {
    let bus = try PrivateBus()
    let server = try await bus.connect()
    let client = try await bus.connect()
    let keeper = SilentHandler(keep: true)
    try await server.register(keeper, at: "/keep")
    try await server.register(SilentHandler(keep: false), at: "/drop")
    func errorName(_ path: ObjectPath, timeout: Duration) async -> ErrorName? {
      do {
        _ = try await client.call(
          .methodCall(destination: server.uniqueName, path: path, interface: nil, member: "X"),
          timeout: timeout)
        return nil
      } catch { return error.name }
    }
    #expect(await errorName("/keep", timeout: .seconds(1)) == .noReply)
    // A generous bound: on a loaded machine the error reply may take over a second.
    #expect(await errorName("/drop", timeout: .seconds(30)) == .failed)
    #expect(keeper.kept.withLock { $0.count } == 1)
  }

  @Test func fileDescriptorsTravelThroughTheBus() async throws {
    let f = try await DemoBus()
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    defer { close(fds[0]) }
    let writer = try #require(UnixFileDescriptor(duplicating: fds[1]))
    close(fds[1])
    let reply = try await f.call("Echo", [.variant(.unixFD(writer))])
    guard case .variant(.unixFD(let received))? = reply.first else {
      Issue.record("no fd in reply: \(reply)")
      return
    }
    #expect(received.rawValue != writer.rawValue)
    #expect(write(received.rawValue, "x", 1) == 1)
    var byte: UInt8 = 0
    #expect(read(fds[0], &byte, 1) == 1 && byte == UInt8(ascii: "x"))
  }

  @Test func aVanishingBusFailsCallsInsteadOfHanging() async throws {
    var bus: PrivateBus? = try PrivateBus()
    let client = try await bus!.connect()
    bus = nil  // kills dbus-daemon
    do {
      _ = try await client.call(
        .methodCall(
          destination: .bus, path: "/org/freedesktop/DBus", interface: .bus, member: "GetId"),
        timeout: .seconds(5))
      Issue.record("a call on a dead bus succeeded")
    } catch {
      #expect([ErrorName.disconnected, .noReply].contains(error.name))
    }
    var events = client.nameEvents.makeAsyncIterator()
    #expect(await events.next() == nil)
  }

  @Test func connectingToNothingIsAnError() async {
    await #expect(throws: DBusError.self) {
      _ = try await Connection.connect(to: "unix:path=/nonexistent/keychain-test-bus")
    }
  }
}
