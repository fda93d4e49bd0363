// SPDX-License-Identifier: MIT
//
// keychaind.conf through the real binary: settings take effect, mistakes are named.

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct ConfigurationTests {
  /// keychaind started with `text` as its configuration file in `directory`: it must refuse to
  /// start (exit 2); what it printed, for the test to check that it names the mistake.
  func refusedStart(
    _ text: String, in directory: TemporaryDirectory, bus: PrivateBus
  ) throws -> String {
    let path = directory.path + "/keychaind.conf"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let result = try runCommand(
      Binaries.keychaind, ["--config", path, "--data-dir", directory.path + "/data"],
      environment: bus.environment(home: directory.path), timeout: .seconds(30))
    #expect(result.status == 2)
    return result.stderr
  }

  @Test func pinentryFromTheConfigurationFile() async throws {
    let pinentry = try ScriptedPinentry(answers: [.pin("test password")])
    let directory = try TemporaryDirectory(prefix: "config")
    let path = directory.path + "/keychaind.conf"
    try "# chosen by the user\n\npinentry = \(pinentry.program)\n".write(
      toFile: path, atomically: true, encoding: .utf8)
    // An empty PINENTRY counts as unset, so the file decides.
    let daemon = try await DaemonProcess(pinentry: "", arguments: ["--config", path])
    let login = "/org/freedesktop/secrets/collection/login"
    _ = try daemon.run(
      "gdbus",
      [
        "call", "--session", "-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets",
        "-m", "org.freedesktop.Secret.Service.Lock", "['\(login)']",
      ])
    let output = try PromptClient(daemon, ["unlock", login]).finish()
    #expect(output.contains("UNLOCKED"), "\(daemon.log)")
    #expect(pinentry.runs == 1)
  }

  /// On GNOME with nothing configured, keychaind asks through GNOME's system prompt; where no
  /// prompter answers (none on this bus), the pinentry on PATH asks instead.
  @Test func onGNOMEWithoutItsPrompterPinentryAsks() async throws {
    let pinentry = try ScriptedPinentry(answers: [.pin("test password")], flavour: "pinentry")
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let daemon = try await DaemonProcess(
      pinentry: "",
      environment: [
        "XDG_CURRENT_DESKTOP": "ubuntu:GNOME", "PATH": pinentry.directory.path + ":" + path,
      ])
    let login = "/org/freedesktop/secrets/collection/login"
    _ = try daemon.run(
      "gdbus",
      [
        "call", "--session", "-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets",
        "-m", "org.freedesktop.Secret.Service.Lock", "['\(login)']",
      ])
    let output = try PromptClient(daemon, ["unlock", login]).finish()
    #expect(output.contains("UNLOCKED"), "\(daemon.log)")
    #expect(pinentry.runs == 1)
    #expect(daemon.log.contains("GNOME's system prompt does not answer"), "\(daemon.log)")
  }

  @Test func kwalletOffLeavesKDEsNamesAlone() async throws {
    let directory = try TemporaryDirectory(prefix: "config")
    let path = directory.path + "/keychaind.conf"
    try "kwallet = false\n".write(toFile: path, atomically: true, encoding: .utf8)
    let daemon = try await DaemonProcess(arguments: ["--config", path])
    let connection = try await daemon.bus.connect()
    #expect(try await connection.nameOwner("org.freedesktop.secrets") != nil)
    #expect(try await connection.nameOwner("org.kde.kwalletd5") == nil)
    #expect(try await connection.nameOwner("org.kde.kwalletd6") == nil)
    await connection.close()

    let refused = try refusedStart("kwallet = maybe\n", in: directory, bus: daemon.bus)
    #expect(refused.contains("keychaind.conf:1: kwallet is true or false"), "\(refused)")
    let notify = try refusedStart("\naccess-notify = sometimes\n", in: directory, bus: daemon.bus)
    #expect(notify.contains("keychaind.conf:2: access-notify is true or false"), "\(notify)")
  }

  @Test func accessControlOffKeepsNoAuditLogAndAWrongModeIsNamed() async throws {
    let directory = try TemporaryDirectory(prefix: "config")
    let path = directory.path + "/keychaind.conf"
    try "access-control = off\n".write(toFile: path, atomically: true, encoding: .utf8)
    let daemon = try await DaemonProcess(arguments: ["--config", path])
    let stored = try daemon.run(
      "secret-tool", ["store", "--label=x", "k", "v"], stdin: Array("s".utf8))
    #expect(stored.status == 0, "\(stored.stderr)")
    #expect(try daemon.run("secret-tool", ["lookup", "k", "v"]).stdout == "s")
    let state = daemon.home.path + "/.local/state/keychaind"
    #expect(!FileManager.default.fileExists(atPath: state + "/audit.jsonl"))
    let verify = try daemon.run(Binaries.keychainctl, ["audit", "verify"])
    #expect(verify.status == 1)
    #expect(verify.stderr.contains("access-control is off"), "\(verify.stderr)")

    let refused = try refusedStart(
      "access-control = paranoid\n", in: directory, bus: daemon.bus)
    #expect(
      refused.contains("keychaind.conf:1: access-control is one of off, audit, protect"),
      "\(refused)")
  }

  @Test func aMistakeInTheFileIsNamedAndStopsTheDaemon() throws {
    let bus = try PrivateBus()
    let directory = try TemporaryDirectory(prefix: "config")
    let result = try refusedStart(
      "pinentry = /usr/bin/pinentry\npinentri = typo\n", in: directory, bus: bus)
    #expect(result.contains("keychaind.conf:2: unknown setting 'pinentri'"), "\(result)")
    let missing = try runCommand(
      Binaries.keychaind, ["--config", directory.path + "/absent.conf"],
      environment: bus.environment(home: directory.path), timeout: .seconds(30))
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("absent.conf: cannot be read"))
  }
}

@Suite struct JournalLoggingTests {
  /// Under systemd, stderr is the journal (JOURNAL_STREAM names it): lines carry their syslog
  /// priority and no timestamp. Elsewhere they carry a timestamp and the level in words.
  @Test func linesCarryTheirPriorityWhenStderrIsTheJournal() throws {
    let bus = try PrivateBus()
    let directory = try TemporaryDirectory(prefix: "journal")
    let log = directory.path + "/stderr"
    for journal in [true, false] {
      #expect(FileManager.default.createFile(atPath: log, contents: nil))
      var info = stat()
      #expect(stat(log, &info) == 0)
      var environment = bus.environment(home: directory.path)
      environment["JOURNAL_STREAM"] = journal ? "\(info.st_dev):\(info.st_ino)" : "1:1"
      let child = try ChildProcess(
        Binaries.keychaind, ["--config", directory.path + "/absent.conf"],
        environment: environment, stderrFile: log)
      #expect(child.wait() == 2)
      let text = try String(contentsOfFile: log, encoding: .utf8)
      if journal {
        #expect(text.hasPrefix("<2>[keychaind] "), "\(text)")
      } else {
        #expect(text.contains(" critical keychaind: [keychaind] "), "\(text)")
      }
    }
  }
}

@Suite struct ManualTests {
  /// The man page documents every option `--help` lists, and every setting the example
  /// configuration shows.
  @Test func manPageCoversEveryOptionAndSetting() throws {
    let root = URL(fileURLWithPath: PrivateBus.defaultConfiguration).deletingLastPathComponent()
      .deletingLastPathComponent().path
    let manual = try String(contentsOfFile: root + "/data/keychaind.1", encoding: .utf8)
    let help = try runCommand(Binaries.keychaind, ["--help"]).stdout
    let options = help.split(whereSeparator: { " ,\n".contains($0) }).filter { $0.hasPrefix("--") }
    #expect(options.count >= 7, "\(help)")
    for option in Set(options) {
      #expect(manual.contains(option.replacingOccurrences(of: "-", with: "\\-")), "\(option)")
    }
    let example = try String(contentsOfFile: root + "/data/keychaind.conf", encoding: .utf8)
    let settings = example.split(separator: "\n").filter {
      $0.hasPrefix("#") && !$0.hasPrefix("# ") && $0.contains(" = ")
    }
    .map { $0.dropFirst().split(separator: " ")[0] }
    #expect(
      settings.sorted() == [
        "access-control", "access-notify", "data-dir", "fido2-device", "kwallet", "lock-after-idle",
        "lock-after-unused", "lock-at-logout", "lock-before-sleep", "lock-on-screen-lock",
        "pinentry", "tpm2-tcti",
      ])
    for setting in settings {
      #expect(manual.contains(".BI \(setting.replacingOccurrences(of: "-", with: "\\-")) "))
    }
  }
}
