// SPDX-License-Identifier: MIT

import KeychainDBus
import KeychainTesting
import Testing

struct Echo: MethodCallHandler {
  func handle(_ call: Message, responder: Responder) {
    responder.reply(call.body)
  }
}

@Test func smokeEcho() async throws {
  let bus = try PrivateBus()
  let server = try await bus.connect()
  try await server.register(Echo(), at: "/test")
  let client = try await bus.connect()
  let reply = try await client.call(
    .methodCall(destination: server.uniqueName, path: "/test/x", interface: nil, member: "Echo",
      body: [.string("hi")]))
  #expect(reply.body == [.string("hi")])
}
