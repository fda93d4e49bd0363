// SPDX-License-Identifier: MIT
//
// A pinentry for tests: a shell script that speaks enough Assuan for keychaind, answers each
// GETPIN from a list, and writes down what it was asked.

import Foundation

/// A scripted pinentry program in a directory of its own.
///
/// Each `GETPIN`, across every run of the program, takes the next answer: `.pin(text)`,
/// `.cancel`, or `.hold`, which blocks until the program is told to stop (the dialog a person
/// has not answered yet). Every command received is appended to `log`, one per line, with
/// `START` when a run begins, `EXIT` when it ends normally and `TERMINATED` on SIGTERM.
public final class ScriptedPinentry: Sendable {
  /// What one GETPIN answers.
  public enum Answer: Sendable {
    case pin(String)
    case cancel
    case hold
    /// Logs `GATED`, waits until `release()`, then answers like `.pin`.
    case gate(String)
  }

  public let directory: TemporaryDirectory
  /// The flavour it plays, by its file name: keychaind speaks to pinentry-gnome3 (whose prompt
  /// is a dialog's heading) as gnome-keyring's dialogs read, and labels the password field of
  /// any other.
  public let flavour: String
  /// The program to put in `PINENTRY`.
  public var program: String { directory.path + "/" + flavour }
  private var logPath: String { directory.path + "/log" }

  /// What one CONFIRM answers: the OK button, the third (SETNOTOK) button, or Cancel.
  public enum Confirmation: String, Sendable {
    case ok
    case notOK = "notok"
    case cancel
  }

  /// - Parameters:
  ///   - confirmationField: whether the dialog has a confirmation field (SETREPEAT): then a
  ///     GETPIN after SETREPEAT answers `S PIN_REPEATED` before the PIN, as pinentry-tty,
  ///     -gnome3 and -qt do; pinentry-curses 1.2 has none and leaves it out.
  ///   - confirmations: what each CONFIRM answers, in turn; once they run out, OK.
  ///   - flavour: the file name it goes by.
  public init(
    answers: [Answer], confirmationField: Bool = true, confirmations: [Confirmation] = [],
    flavour: String = "pinentry-gnome3"
  ) throws {
    self.flavour = flavour
    directory = try TemporaryDirectory(prefix: "pinentry")
    let lines = answers.map { answer in
      switch answer {
      case .pin(let text): "pin " + Self.escape(text)
      case .cancel: "cancel"
      case .hold: "hold"
      case .gate(let text): "gate " + Self.escape(text)
      }
    }
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: directory.path + "/answers", atomically: true, encoding: .utf8)
    try "0".write(toFile: directory.path + "/count", atomically: true, encoding: .utf8)
    try (confirmations.map(\.rawValue).joined(separator: "\n") + "\n").write(
      toFile: directory.path + "/confirmations", atomically: true, encoding: .utf8)
    try "0".write(toFile: directory.path + "/confirmed", atomically: true, encoding: .utf8)
    let script = """
      #!/bin/sh
      dir='\(directory.path)'
      echo START >> "$dir/log"
      trap 'echo TERMINATED >> "$dir/log"; [ -n "$holder" ] && kill "$holder"; exit 1' TERM
      echo "OK Pleased to meet you"
      repeat=
      while IFS= read -r line; do
        echo "$line" >> "$dir/log"
        case "$line" in
          "SETREPEAT"*) [ \(confirmationField ? "1" : "") ] && repeat="S PIN_REPEATED\\n"; echo OK ;;
          GETPIN)
            n=$(($(cat "$dir/count") + 1)); echo "$n" > "$dir/count"
            answer=$(sed -n "${n}p" "$dir/answers")
            status=$repeat; repeat=
            case "$answer" in
              "pin "*) printf "${status}D %s\\nOK\\n" "${answer#pin }" ;;
              "gate "*) echo GATED >> "$dir/log"
                while [ ! -e "$dir/release" ]; do sleep 0.05; done
                printf "${status}D %s\\nOK\\n" "${answer#gate }" ;;
              hold) echo HOLDING >> "$dir/log"; sleep 600 & holder=$!; wait "$holder"; exit 1 ;;
              *) echo "ERR 83886179 Operation cancelled <Pinentry>" ;;
            esac ;;
          CONFIRM)
            n=$(($(cat "$dir/confirmed") + 1)); echo "$n" > "$dir/confirmed"
            case "$(sed -n "${n}p" "$dir/confirmations")" in
              notok) echo "ERR 83886194 Not confirmed <Pinentry>" ;;
              cancel) echo "ERR 83886179 Operation cancelled <Pinentry>" ;;
              *) echo OK ;;
            esac ;;
          BYE) echo EXIT >> "$dir/log"; echo "OK closing connection"; exit 0 ;;
          *) echo OK ;;
        esac
      done
      echo EOF >> "$dir/log"
      """
    try writeExecutable(script, to: program)
  }

  /// Assuan's escaping of data lines.
  static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\n", with: "%0A")
      .replacingOccurrences(of: "\r", with: "%0D")
  }

  /// Lets a `.gate` answer go.
  public func release() throws {
    try "".write(toFile: directory.path + "/release", atomically: true, encoding: .utf8)
  }

  /// Every line written so far.
  public var log: [String] {
    ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(
      String.init)
  }

  /// How many CONFIRM questions were asked.
  public var confirmations: Int { log.filter { $0 == "CONFIRM" }.count }

  /// How many times the program was started.
  public var runs: Int { log.filter { $0 == "START" }.count }

  /// Waits (up to 30 s, a bound and not a speed check) until `line` is in the log.
  public func waitFor(_ line: String) async throws {
    for _ in 0..<1500 {
      if log.contains(line) { return }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw TestingError("pinentry never logged \(line): \(log)")
  }
}
