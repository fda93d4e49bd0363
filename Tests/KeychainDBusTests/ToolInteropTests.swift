// SPDX-License-Identifier: MIT
//
// The demo service driven by real D-Bus tools: gdbus (GLib) and busctl (systemd's sd-bus),
// two independent implementations of the protocol.

import KeychainDBus
import KeychainTesting
import Testing

@Suite struct ToolInteropTests {
  // The tools run on threads of their own (`runCommandOnOwnThread`): the demo service answers
  // from this process, and some of its answers (Properties.Set) need a thread of the
  // cooperative pool. Other tests running in parallel may still hold both of its threads for a
  // while (they wait for their commands synchronously), so busctl waits up to two minutes, not
  // sd-bus's 25 s; an answer that never comes still fails.

  /// Runs gdbus against the fixture's bus.
  private func gdbus(_ f: DemoBus, _ arguments: [String]) async throws -> CommandResult {
    try await runCommandOnOwnThread("gdbus", arguments, environment: f.bus.environment())
  }

  /// Runs busctl against the fixture's bus.
  private func busctl(_ f: DemoBus, _ arguments: [String]) async throws -> CommandResult {
    try await runCommandOnOwnThread(
      "busctl", ["--address=\(f.bus.address)", "--timeout=120"] + arguments,
      timeout: .seconds(150))
  }

  @Test func gdbusCallsMethodsAndReadsErrors() async throws {
    let f = try await DemoBus()
    let base = [
      "call", "--session", "--dest", "org.example.Demo", "--object-path", "/org/example/Demo",
    ]
    let hello = try await gdbus(f, base + ["--method", "org.example.Demo.Hello", "gdbus"])
    #expect(hello.status == 0)
    #expect(hello.stdout == "('Hello, gdbus!',)\n")
    let attributes = try await gdbus(
      f, base + ["--method", "org.example.Demo.Attributes", "{'xdg:schema': 'x', 'user': 'ü'}"])
    #expect(attributes.stdout == "(uint32 2,)\n")
    let echo = try await gdbus(
      f, base + ["--method", "org.example.Demo.Echo", "<([byte 1, 2], {'k': <1>})>"])
    #expect(echo.stdout == "(<([byte 0x01, 0x02], {'k': <1>})>,)\n")
    // gdbus checks types against the introspection data itself; dbus-send does not.
    let wrongType = try await runCommandOnOwnThread(
      "dbus-send",
      [
        "--session", "--print-reply", "--dest=org.example.Demo", "/org/example/Demo",
        "org.example.Demo.Attributes", "string:just a string",
      ],
      environment: f.bus.environment())
    #expect(wrongType.status != 0)
    #expect(wrongType.stderr.contains("Error org.freedesktop.DBus.Error.InvalidArgs"))
    let locked = try await gdbus(
      f, base + ["--method", "org.example.Demo.Fail", "org.freedesktop.Secret.Error.IsLocked"])
    #expect(locked.stderr.contains("org.freedesktop.Secret.Error.IsLocked"))
    let introspection = try await gdbus(
      f,
      [
        "introspect", "--session", "--dest", "org.example.Demo", "--object-path",
        "/org/example/Demo",
      ])
    #expect(introspection.stdout.contains("Hello(in  s name,"))
    #expect(introspection.stdout.contains("readwrite s Greeting"))
  }

  @Test func busctlCallsMethodsAndProperties() async throws {
    let f = try await DemoBus()
    let target = ["org.example.Demo", "/org/example/Demo", "org.example.Demo"]
    let hello = try await busctl(f, ["call"] + target + ["Hello", "s", "busctl"])
    #expect(hello.status == 0)
    #expect(hello.stdout == "s \"Hello, busctl!\"\n")
    let attrs = try await busctl(
      f, ["call"] + target + ["Attributes", "a{ss}", "2", "a", "1", "b", "2"])
    #expect(attrs.stdout == "u 2\n")
    let setProperty = try await busctl(f, ["set-property"] + target + ["Greeting", "s", "Hey"])
    #expect(setProperty.status == 0, "\(setProperty.stderr)")
    let property = try await busctl(f, ["get-property"] + target + ["Greeting"])
    #expect(property.stdout == "s \"Hey\"\n")
    let unknown = try await busctl(f, ["call"] + target + ["NoSuchMethod"])
    #expect(unknown.status != 0)
    #expect(unknown.stderr.contains("No such method “NoSuchMethod”"), "\(unknown.stderr)")
    let tree = try await busctl(f, ["tree", "org.example.Demo"])
    #expect(tree.stdout.contains("/org/example/Demo/child"))
    // The service is still answering after all of that.
    #expect(
      try await busctl(f, ["call"] + target + ["Hello", "s", "again"]).stdout
        == "s \"Hey, again!\"\n")
  }
}
