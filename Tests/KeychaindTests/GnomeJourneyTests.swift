// SPDX-License-Identifier: MIT
//
// A person's first day with keychaind on GNOME (issue 40), as they meet it: GNOME's own dialogs
// (gcr's system prompter, the program GNOME Shell stands in for, here gcr-prompter on a virtual
// display) answered by keystrokes. The first store makes the keyring in the new-password
// dialog; in `protect`, another program's read brings up the access dialog, whose "Always
// allow this program" check box is ticked; after a restart the unlock dialog opens the keyring
// and the program reads without being asked again. Each step's screen is kept under
// .build/journeys/gnome-first-day for a person to look at.

import Foundation
import KeychainDBus
import KeychainTesting
import Testing

private let prompter = "/usr/libexec/gcr-prompter"

@Suite(
  .serialized,
  .enabled(
    if: VirtualDisplay.isAvailable && FileManager.default.isExecutableFile(atPath: prompter),
    "needs Xvfb, xdotool, ImageMagick's import and gcr-prompter (gcr)"))
struct GnomeJourneyTests {
  /// Where journeys keep their screenshots: .build/journeys in the repository.
  static let journeys =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent(".build/journeys").path

  /// Starts gcr-prompter on `daemon`'s bus and display, and waits (a bound) until it owns the
  /// system prompter's name.
  static func startPrompter(_ daemon: DaemonProcess, _ screen: VirtualDisplay) async throws
    -> ChildProcess
  {
    let environment = daemon.environment.merging(
      ["DISPLAY": screen.display, "GCR_PERSIST": "1", "NO_AT_BRIDGE": "1"]) { $1 }
    let child = try ChildProcess(
      prompter, [], environment: environment, stderrFile: daemon.home.path + "/prompter.log")
    let watcher = try await daemon.bus.connect()
    defer { Task { await watcher.close() } }
    for _ in 0..<1500 where child.poll() == nil {
      if try await watcher.nameOwner("org.gnome.keyring.SystemPrompter") != nil { return child }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw TestingError("gcr-prompter did not take the system prompter's name")
  }

  /// Runs `tool` with `arguments` in the background, with `input` on its standard input, as a
  /// program of the person's desktop; its output goes to a file read when it has exited.
  final class Background {
    let child: ChildProcess
    let output: String

    init(
      _ daemon: DaemonProcess, _ screen: VirtualDisplay, _ tool: String, _ arguments: [String],
      input: String = ""
    )
      throws
    {
      let name = UUID().uuidString
      output = daemon.home.path + "/\(name).out"
      let inputFile = daemon.home.path + "/\(name).in"
      try input.write(toFile: inputFile, atomically: true, encoding: .utf8)
      child = try ChildProcess(
        tool, arguments,
        environment: daemon.environment.merging(["DISPLAY": screen.display]) { $1 },
        stdinFile: inputFile, stdoutFile: output, stderrFile: output + ".err")
    }

    /// Waits (a bound) for it to exit, without holding one of the test pool's threads; its
    /// status and output.
    func finish() async throws -> (status: Int32?, output: String) {
      var status = child.poll()
      for _ in 0..<3000 where status == nil {
        try await Task.sleep(for: .milliseconds(20))
        status = child.poll()
      }
      return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }
  }

  @Test func aFirstDayOnGNOME() async throws {
    let screen = try VirtualDisplay(screenshots: Self.journeys + "/gnome-first-day")
    let daemon = try await DaemonProcess(
      password: nil, pinentry: DialogName.systemPrompt,
      environment: ["DISPLAY": screen.display], configuration: AccessControlTests.protect)
    let gcr = try await Self.startPrompter(daemon, screen)
    defer {
      gcr.signal(SIGTERM)
      _ = gcr.wait(timeout: .seconds(10))
    }

    // The first store: the keyring is made in GNOME's new-password dialog.
    let store = try Background(
      daemon, screen, "/usr/bin/secret-tool",
      ["store", "--label=Mail password", "service", "mail"],
      input: "s3cret")
    try await screen.waitForWindow(named: "New Keyring Password")
    try screen.screenshot("new-keyring-dialog")
    try screen.type("day one")
    try screen.press("Tab")
    try screen.type("day one")
    try screen.screenshot("new-keyring-typed")
    try screen.press("Return")
    #expect(try await store.finish().status == 0, "\(daemon.log)")

    // Another program: the access dialog, "Always allow this program" ticked, then Allow.
    let other = daemon.home.path + "/mail-sync"
    _ = try runCommand("/bin/cp", ["/usr/bin/secret-tool", other])
    let read = try Background(daemon, screen, other, ["lookup", "service", "mail"])
    try await screen.waitForWindow(named: "Keyring access")
    try screen.screenshot("access-dialog")
    // Focus starts on Allow; the check box is two fields back.
    try screen.press("shift+Tab", "shift+Tab", "space")
    try screen.screenshot("always-allow-ticked")
    try screen.press("Return")
    let first = try await read.finish()
    #expect(first.status == 0 && first.output == "s3cret", "\(first)\n\(daemon.log)")

    // The next day: keychaind starts locked; the unlock dialog opens the keyring, and the
    // program it always allows reads without another question.
    daemon.kill(with: SIGTERM)
    try await daemon.start()
    let again = try Background(daemon, screen, other, ["lookup", "service", "mail"])
    try await screen.waitForWindow(named: "Unlock Keyring")
    try screen.screenshot("unlock-dialog")
    try screen.type("day one")
    try screen.press("Return")
    let second = try await again.finish()
    try screen.screenshot("no-access-dialog-after-unlock")
    #expect(second.status == 0 && second.output == "s3cret", "\(second)\n\(daemon.log)")
    var decisions: [String] = []
    for _ in 0..<500 {  // the log is written just after the reply: a bound, not a speed check
      decisions =
        ((try? jsonLines(at: daemon.home.path + "/.local/state/keychaind/audit.jsonl"))
        ?? []).map { "\($0["op"] ?? "") \($0["decision"] ?? "")" }
      if decisions.contains("read grant") { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(decisions.contains("grant allowed-always"), "\(decisions)")
    #expect(!decisions.contains("read allowed-once"), "\(decisions)")
    #expect(decisions.contains("read grant"), "\(decisions)")
  }
}

extension GnomeJourneyTests {
  /// The prompter killed while its access dialog shows: the read fails at once, with a line in
  /// the log, and nothing is allowed.
  @Test func aPrompterThatDiesAllowsNothing() async throws {
    let screen = try VirtualDisplay(screenshots: Self.journeys + "/gnome-prompter-dies")
    let daemon = try await DaemonProcess(
      pinentry: DialogName.systemPrompt, environment: ["DISPLAY": screen.display],
      configuration: AccessControlTests.protect)
    let gcr = try await Self.startPrompter(daemon, screen)
    let stored = try daemon.run(
      "secret-tool", ["store", "--label=Mail password", "service", "mail"],
      stdin: Array("s3cret".utf8))
    #expect(stored.status == 0, "\(stored.stderr)")
    let other = daemon.home.path + "/mail-sync"
    _ = try runCommand("/bin/cp", ["/usr/bin/secret-tool", other])
    let read = try Background(daemon, screen, other, ["lookup", "service", "mail"])
    try await screen.waitForWindow(named: "Keyring access")
    gcr.signal(SIGKILL)
    let result = try await read.finish()
    #expect(result.status == 1 && result.output.isEmpty, "\(result)\n\(daemon.log)")
    #expect(daemon.log.contains("access dialog failed"), "\(daemon.log)")
    // The refusal's record, written just after the reply (a bound, not a speed check).
    var decisions: [String] = []
    for _ in 0..<500 where !decisions.contains("read no-dialog") {
      decisions =
        ((try? jsonLines(at: daemon.home.path + "/.local/state/keychaind/audit.jsonl")) ?? [])
        .map { "\($0["op"] ?? "") \($0["decision"] ?? "")" }
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(decisions.contains("read no-dialog"), "\(decisions)")
    #expect(!decisions.contains { $0.contains("allowed") }, "\(decisions)")
  }
}

/// What keychaind takes for GNOME's system prompt in `PINENTRY`.
enum DialogName {
  static let systemPrompt = "gcr"
}
