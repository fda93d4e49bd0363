// SPDX-License-Identifier: MIT
//
// dbus/org.freedesktop.Secret.xml is what the daemon's Introspect says about the Secret Service
// interfaces. The test compares the two; after a deliberate interface change, regenerate the
// file with `KEYCHAIN_UPDATE_GOLDEN=1 swift test --filter InterfaceXMLTests` and review the diff.

import Foundation
import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

@Suite struct InterfaceXMLTests {
  /// The `<interface name="…">…</interface>` block for `name` in an introspection document.
  private func block(_ name: String, in xml: String) -> String? {
    guard let start = xml.range(of: " <interface name=\"\(name)\">") else { return nil }
    guard let end = xml.range(of: " </interface>\n", range: start.upperBound..<xml.endIndex) else {
      return nil
    }
    return String(xml[start.lowerBound..<end.upperBound])
  }

  @Test(arguments: ServiceFixture.Depth.allCases)
  func committedXMLMatchesIntrospection(depth: ServiceFixture.Depth) async throws {
    let harness = try await ServiceFixture(depth)
    func call(
      _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ body: [DBusValue] = []
    ) async throws -> [DBusValue] {
      try await harness.call(path, interface, member, body)
    }
    let service: ObjectPath = "/org/freedesktop/secrets"
    let session = try await call(
      service, SecretService.serviceInterface, SecretService.ServiceMethods.openSession.name,
      [.string("plain"), .variant(.string(""))])[1]
    let prompt = try await call(
      service, SecretService.serviceInterface, SecretService.ServiceMethods.createCollection.name,
      [[String: DBusValue]().dbusValue, .string("")])[1]
    let secret = "org.freedesktop.Secret."
    let objects: [(String, ObjectPath)] = [
      (secret + "Service", service),
      ("org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface", service),
      (secret + "Collection", "/org/freedesktop/secrets/collection/login"),
      (secret + "Item", harness.itemPath),
      (secret + "Session", try #require(session.objectPath)),
      (secret + "Prompt", try #require(prompt.objectPath)),
    ]
    var blocks: [String] = []
    for (name, path) in objects {
      let xml = try await call(path, .introspectable, "Introspect")[0].string ?? ""
      blocks.append(
        try #require(block(name, in: xml), "\(name) missing"))
    }
    let generated = """
      <!-- SPDX-License-Identifier: MIT -->
      <!-- The Secret Service interfaces as keychaind implements them; checked against its
           Introspect output by Tests/KeychaindTests/InterfaceXMLTests.swift. -->
      <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
       "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
      <node>

      """ + blocks.joined() + "</node>\n"
    let root = URL(fileURLWithPath: PrivateBus.defaultConfiguration).deletingLastPathComponent()
      .deletingLastPathComponent()
    let committed = root.appendingPathComponent("dbus/org.freedesktop.Secret.xml")
    if ProcessInfo.processInfo.environment["KEYCHAIN_UPDATE_GOLDEN"] != nil {
      try generated.write(to: committed, atomically: true, encoding: .utf8)
    }
    let expected = try String(contentsOf: committed, encoding: .utf8)
    #expect(generated == expected, "dbus/org.freedesktop.Secret.xml differs from Introspect")
  }
}
