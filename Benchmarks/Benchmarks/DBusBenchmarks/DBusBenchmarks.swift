// SPDX-License-Identifier: MIT
//
// The D-Bus layer's costs: a method round trip through a private dbus-daemon to a service in
// the same process (the object server's full path: decode, dispatch, check, reply), the
// Peer.Ping floor that libdbus answers by itself, and marshalling a Secret Service message.

import Benchmark
import KeychainDBus
import KeychainTesting

/// The bus, the service and a client, started once for the whole run.
nonisolated(unsafe) var fixture: DemoBus?

/// A CreateItem call as libsecret sends it: properties, a secret struct, replace.
let createItem = Message.methodCall(
  destination: "org.freedesktop.secrets",
  path: "/org/freedesktop/secrets/aliases/default",
  interface: "org.freedesktop.Secret.Collection", member: "CreateItem",
  body: [
    [
      "org.freedesktop.Secret.Item.Label": DBusValue.string("Password for 'me' on 'example'"),
      "org.freedesktop.Secret.Item.Attributes": [
        "xdg:schema": "org.freedesktop.Secret.Generic", "service": "example", "username": "me",
      ].dbusValue,
    ].dbusValue,
    .structure([
      .objectPath("/org/freedesktop/secrets/session/1"), .bytes([]),
      .bytes(Array("correct horse battery staple".utf8)), .string("text/plain"),
    ]),
    .boolean(true),
  ])

let benchmarks: @Sendable () -> Void = {
  let roundTrip = Benchmark.Configuration(
    metrics: [.wallClock, .throughput, .cpuTotal, .mallocCountTotal],
    scalingFactor: .kilo, maxDuration: .seconds(5), maxIterations: 20,
    thresholds: [.throughput: .relaxed],
    setup: { fixture = try await DemoBus() },
    teardown: { fixture = nil })

  Benchmark("Method round trip to in-process service", configuration: roundTrip) { benchmark in
    let client = fixture!.client
    let call = Message.methodCall(
      destination: DemoService.name, path: DemoService.path, interface: DemoService.interface,
      member: "Hello", body: [.string("bench")])
    for _ in benchmark.scaledIterations {
      blackHole(try await client.call(call))
    }
  }

  Benchmark("Peer.Ping round trip (libdbus floor)", configuration: roundTrip) { benchmark in
    let client = fixture!.client
    let ping = Message.methodCall(
      destination: DemoService.name, path: DemoService.path, interface: .peer, member: "Ping")
    for _ in benchmark.scaledIterations {
      blackHole(try await client.call(ping))
    }
  }

  Benchmark(
    "Marshal and demarshal CreateItem",
    configuration: .init(
      metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .kilo,
      maxDuration: .seconds(3))
  ) { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try WireFormat.demarshal(try WireFormat.marshal(createItem)))
    }
  }
}
