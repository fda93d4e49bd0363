// SPDX-License-Identifier: MIT
//
// The demo service driven by real D-Bus tools: gdbus (GLib) and busctl (systemd's sd-bus),
// two independent implementations of the protocol.

import KeychainDBus
import KeychainTesting
import Testing

@Suite struct ToolInteropTests {
  /// Runs gdbus against the fixture's bus.
  private func gdbus(_ f: DemoBus, _ arguments: [String]) throws -> CommandResult {
    try runCommand("gdbus", arguments, environment: f.bus.environment())
  }

  /// Runs busctl against the fixture's bus. Its calls wait up to two minutes, not sd-bus's
  /// 25 s: on a loaded 2-core machine (CI runs the suite twice) a whole-machine stall has
  /// outlasted 25 s, and a reply that never comes still fails the test.
  private func busctl(_ f: DemoBus, _ arguments: [String]) throws -> CommandResult {
    try runCommand(
      "busctl", ["--address=\(f.bus.address)", "--timeout=120"] + arguments,
      timeout: .seconds(150))
  }

  @Test func gdbusCallsMethodsAndReadsErrors() async throws {
    let f = try await DemoBus()
    let base = [
      "call", "--session", "--dest", "org.example.Demo", "--object-path", "/org/example/Demo",
    ]
    let hello = try gdbus(f, base + ["--method", "org.example.Demo.Hello", "gdbus"])
    #expect(hello.status == 0)
    #expect(hello.stdout == "('Hello, gdbus!',)\n")
    let attributes = try gdbus(
      f, base + ["--method", "org.example.Demo.Attributes", "{'xdg:schema': 'x', 'user': 'ü'}"])
    #expect(attributes.stdout == "(uint32 2,)\n")
    let echo = try gdbus(
      f, base + ["--method", "org.example.Demo.Echo", "<([byte 1, 2], {'k': <1>})>"])
    #expect(echo.stdout == "(<([byte 0x01, 0x02], {'k': <1>})>,)\n")
    // gdbus checks types against the introspection data itself; dbus-send does not.
    let wrongType = try runCommand(
      "dbus-send",
      [
        "--session", "--print-reply", "--dest=org.example.Demo", "/org/example/Demo",
        "org.example.Demo.Attributes", "string:just a string",
      ],
      environment: f.bus.environment())
    #expect(wrongType.status != 0)
    #expect(wrongType.stderr.contains("Error org.freedesktop.DBus.Error.InvalidArgs"))
    let locked = try gdbus(
      f, base + ["--method", "org.example.Demo.Fail", "org.freedesktop.Secret.Error.IsLocked"])
    #expect(locked.stderr.contains("org.freedesktop.Secret.Error.IsLocked"))
    let introspection = try gdbus(
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
    let hello = try busctl(f, ["call"] + target + ["Hello", "s", "busctl"])
    #expect(hello.status == 0)
    #expect(hello.stdout == "s \"Hello, busctl!\"\n")
    let attrs = try busctl(f, ["call"] + target + ["Attributes", "a{ss}", "2", "a", "1", "b", "2"])
    #expect(attrs.stdout == "u 2\n")
    let setProperty = try busctl(f, ["set-property"] + target + ["Greeting", "s", "Hey"])
    #expect(setProperty.status == 0, "\(setProperty.stderr)")
    let property = try busctl(f, ["get-property"] + target + ["Greeting"])
    #expect(property.stdout == "s \"Hey\"\n")
    let unknown = try busctl(f, ["call"] + target + ["NoSuchMethod"])
    #expect(unknown.status != 0)
    #expect(unknown.stderr.contains("No such method “NoSuchMethod”"), "\(unknown.stderr)")
    let tree = try busctl(f, ["tree", "org.example.Demo"])
    #expect(tree.stdout.contains("/org/example/Demo/child"))
    // The service is still answering after all of that.
    #expect(
      try busctl(f, ["call"] + target + ["Hello", "s", "again"]).stdout == "s \"Hey, again!\"\n")
  }
}
