// SPDX-License-Identifier: MIT
//
// Desktop notifications about refusals (`RefusalNotices`), on the real daemon in `protect`: a
// stand-in notification service on the daemon's private bus (a SecretStorage-free jeepney
// script that owns org.freedesktop.Notifications and writes down every Notify it gets).

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct AccessNoticeTests {
  typealias Setup = AccessControlTests.Setup

  /// Owns org.freedesktop.Notifications, prints "ready", then appends each Notify's summary
  /// and body to the file named by its argument, one JSON object a line.
  static let service = """
    import json, sys
    from jeepney import HeaderFields, MessageType, new_method_return
    from jeepney.bus_messages import message_bus
    from jeepney.io.blocking import open_dbus_connection
    conn = open_dbus_connection(bus="SESSION")
    conn.send_and_get_reply(message_bus.RequestName("org.freedesktop.Notifications"))
    print("ready", flush=True)
    while True:
        msg = conn.receive()
        if msg.header.message_type != MessageType.method_call:
            continue
        if msg.header.fields.get(HeaderFields.member) == "Notify":
            with open(sys.argv[1], "a") as out:
                out.write(json.dumps({"summary": msg.body[3], "body": msg.body[4]}) + "\\n")
        if not msg.header.flags & 1:
            conn.send(new_method_return(msg, "u", (1,)))
    """

  /// The stand-in service, running on `setup`'s bus until the test ends.
  final class Notifications: Sendable {
    let process: ChildProcess
    let file: String

    init(_ setup: Setup) throws {
      let script = setup.daemon.home.path + "/notifications.py"
      file = setup.daemon.home.path + "/notifications.jsonl"
      try AccessNoticeTests.service.write(toFile: script, atomically: true, encoding: .utf8)
      process = try ChildProcess(
        "/usr/bin/python3", [script, file], environment: setup.daemon.environment,
        pipeStdout: true)
      #expect(try process.readLine(timeout: .seconds(30)) == "ready")
    }

    deinit {
      process.signal(SIGKILL)
      _ = process.wait(timeout: .seconds(10))
    }

    /// The notifications so far, once there are at least `count`, waiting at most `bound`
    /// (a bound, not a speed check). A notification is sent a moment after the call that
    /// refused was answered and recorded; to show that none came, a second is plenty.
    func shown(atLeast count: Int, waitingAtMost bound: Duration = .seconds(10)) async throws
      -> [[String: String]]
    {
      var shown: [[String: String]] = []
      let deadline = ContinuousClock.now + bound
      while true {
        shown = try jsonLines(at: file).map { $0.compactMapValues { $0 as? String } }
        if shown.count >= count || ContinuousClock.now >= deadline { break }
        try await Task.sleep(for: .milliseconds(20))
      }
      return shown
    }
  }

  @Test func aProgramRefusedThreeTimesIsShownOnceWithTheCommandThatAllowsIt() async throws {
    // Every dialog answers Deny. Whether a refusal comes from the dialog or from the quiet
    // after a Deny (5 s, which a loaded machine may outlast between two lookups), it counts.
    let setup = try await Setup(confirmations: [.cancel, .cancel, .cancel, .cancel])
    let notifications = try Notifications(setup)
    try setup.store("s3cret")
    for _ in 0..<2 { #expect(try setup.lookup(by: setup.copy).stdout.isEmpty) }
    _ = try await setup.decisions(["read denied": 2], of: "exe:\(setup.copy)")
    #expect(
      try await notifications.shown(atLeast: 1, waitingAtMost: .seconds(1)).isEmpty,
      "before the third refusal")
    #expect(try setup.lookup(by: setup.copy).stdout.isEmpty)
    let shown = try await notifications.shown(atLeast: 1)
    #expect(shown.count == 1, "\(shown)\n\(setup.daemon.log)")
    #expect(shown.first?["summary"]?.contains("st2") == true, "\(shown)")
    let body = shown.first?["body"] ?? ""
    #expect(body.contains("refused access 3 times"), "\(body)")
    #expect(
      body.contains(
        "keychainctl access allow --app 'exe:\(setup.copy)' /org/freedesktop/secrets/collection/login/"
      ), "\(body)")
    #expect(!body.contains("s3cret") && !body.contains("Mail password"), "\(body)")
    // A fourth refusal within ten minutes shows nothing more.
    #expect(try setup.lookup(by: setup.copy).stdout.isEmpty)
    let decisions = try await setup.decisions(["read denied": 4], of: "exe:\(setup.copy)")
    #expect(decisions.count { $0 == "read denied" } >= 4, "\(decisions)")
    #expect(try await notifications.shown(atLeast: 2, waitingAtMost: .seconds(1)).count == 1)
  }

  @Test func aCallerWithNoDisplayIsShownAtItsFirstRefusal() async throws {
    let setup = try await Setup()
    let notifications = try Notifications(setup)
    try setup.store("s3cret")
    #expect(try setup.lookup(by: setup.copy, environment: [:]).stdout.isEmpty)
    let shown = try await notifications.shown(atLeast: 1)
    #expect(shown.count == 1, "\(shown)\n\(setup.daemon.log)")
    let body = shown.first?["body"] ?? ""
    #expect(body.contains("there was no display to ask on"), "\(body)")
    #expect(body.contains("keychainctl access allow --app 'exe:\(setup.copy)'"), "\(body)")
  }

  @Test func noNotificationWithAccessNotifyOff() async throws {
    let setup = try await Setup(
      configuration: AccessControlTests.protect + "access-notify = false\n")
    let notifications = try Notifications(setup)
    try setup.store("s3cret")
    #expect(try setup.lookup(by: setup.copy, environment: [:]).stdout.isEmpty)
    _ = try await setup.decisions(["read no-display": 1], of: "exe:\(setup.copy)")
    #expect(try await notifications.shown(atLeast: 1, waitingAtMost: .seconds(1)).isEmpty)
  }
}
