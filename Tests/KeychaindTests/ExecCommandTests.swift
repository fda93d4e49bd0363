// SPDX-License-Identifier: MIT
//
// keychainctl exec through the binaries: the command sees its secrets, in its environment and in
// a memory-only file; keychainctl's own environment never holds them; no file is left; exit
// statuses pass through; a query that matches nothing runs nothing.

import Foundation
import KeychainTesting
import Testing

@Suite(.readsAnotherProgramsItems) struct ExecCommandTests {
  private func run(_ daemon: DaemonProcess, _ arguments: [String], _ stdin: String = "") throws
    -> CommandResult
  {
    try daemon.run(Binaries.keychainctl, arguments, stdin: Array(stdin.utf8))
  }

  @Test func theCommandGetsItsSecretsAndNothingIsLeft() async throws {
    let daemon = try await DaemonProcess()
    let token = "tok-\(UInt64.random(in: 1_000_000...9_999_999))"
    #expect(try run(daemon, ["store", "--label=GH", "service", "github"], token).status == 0)
    let marker = daemon.home.path + "/ran"
    // The child shows what it got, where its file lives, and whether its parent
    // (keychainctl) holds the token in its own environment; then exits 7.
    let script = """
      printf '%s|' "$GH_TOKEN"; cat "$CFG"; echo; readlink "$CFG"
      tr '\\0' '\\n' < /proc/$PPID/environ | grep -c -- "$GH_TOKEN"; touch \(marker); exit 7
      """
    let ran = try run(
      daemon,
      [
        "exec", "--env", "GH_TOKEN=service=github", "--file", "CFG=service=github", "--", "/bin/sh",
        "-c", script,
      ])
    #expect(ran.status == 7, "\(ran.stderr)")
    #expect(
      ran.stdout.split(separator: "\n") == ["\(token)|\(token)", "/memfd:CFG (deleted)", "0"],
      "\(ran.stdout)")
    #expect(FileManager.default.fileExists(atPath: marker))
    try FileManager.default.removeItem(atPath: marker)
    // The audit log names the reads as the command's, run by keychainctl, on keychainctl's word.
    let shell = URL(fileURLWithPath: "/bin/sh").resolvingSymlinksInPath().path
    let audit = try run(daemon, ["audit", "show"]).stdout
    let reads = audit.split(separator: "\n").filter {
      $0.contains(" read ") && $0.contains("@exe:\(shell) pid")
    }
    #expect(reads.count == 2, "\(audit)")
    #expect(reads.allSatisfy { $0.contains("identified by keychainctl's word") })
    // No other program may say which command it runs.
    let claim = try daemon.run(
      "/usr/bin/dbus-send",
      [
        "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
        "org.keychain_linux.Access.RunsCommand", "string:/usr/bin/env",
      ])
    #expect(claim.status != 0 && claim.stderr.contains("only keychainctl exec"), "\(claim.stderr)")

    // A signal's end is 128 + N; a command that cannot start is 127.
    let killed = try run(
      daemon, ["exec", "--env", "T=service=github", "--", "/bin/sh", "-c", "kill -TERM $$"])
    #expect(killed.status == 128 + SIGTERM)
    let missing = try run(daemon, ["exec", "--env", "T=service=github", "--", "/nonexistent"])
    #expect(missing.status == 127 && missing.stderr.contains("cannot run /nonexistent"))
    let unknown = try run(daemon, ["exec", "--env", "T=service=github", "--", "no-such-command"])
    #expect(unknown.status == 127 && unknown.stderr.contains("no such command on PATH"))

    // Nothing matches: a plain line, exit status 1, and the command is not run.
    let none = try run(
      daemon, ["exec", "--env", "T=service=nothing", "--", "/usr/bin/touch", marker])
    #expect(none.status == 1, "\(none.stderr)")
    #expect(none.stderr == "keychainctl: no item matches service=nothing (for T)\n")
    #expect(!FileManager.default.fileExists(atPath: marker))
    for bad in [
      ["exec", "--env", "T=service=github"], ["exec", "--env", "=x=y", "--", "/bin/true"],
    ] {
      #expect(try run(daemon, bad).status == 64, "\(bad)")
    }
    #expect(!daemon.log.contains(token))
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }
}
