// SPDX-License-Identifier: MIT

import Foundation
import Synchronization

/// An X server of its own (Xvfb), for the dialogs and windows a person would see: windows are
/// found by name, keys typed with xdotool, and each step kept as a PNG a person can look at
/// (ImageMagick's `import`).
public final class VirtualDisplay: Sendable {
  /// `:N`, for `DISPLAY`.
  public let display: String
  private let server: ChildProcess
  /// Where this display's screenshots go, made on first use.
  public let screenshots: String
  private let shots = Mutex(0)

  /// Display numbers handed out by this process: two displays started at the same moment have
  /// been seen to race for one number.
  private static let taken = Mutex(Set<Int>())

  /// The programs a virtual display needs.
  public static let tools = ["/usr/bin/Xvfb", "/usr/bin/xdotool", "/usr/bin/import"]
  public static var isAvailable: Bool {
    tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// Starts Xvfb on a free display and waits (a bound) until it takes connections;
  /// screenshots go to `screenshots` (emptied first).
  public init(screenshots: String) throws {
    let number = try Self.taken.withLock { taken -> Int in
      for number in 130..<400 where !taken.contains(number) {
        guard !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)"),
          !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
        else { continue }
        taken.insert(number)
        return number
      }
      throw TestingError("no free X display number")
    }
    display = ":\(number)"
    server = try ChildProcess(
      "/usr/bin/Xvfb", [display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"])
    self.screenshots = screenshots
    try? FileManager.default.removeItem(atPath: screenshots)
    try FileManager.default.createDirectory(
      atPath: screenshots, withIntermediateDirectories: true)
    for _ in 0..<500 {  // a bound, not a speed check
      if FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") { return }
      if server.poll() != nil { break }
      Thread.sleep(forTimeInterval: 0.02)
    }
    throw TestingError("Xvfb did not start on \(display)")
  }

  deinit {
    server.signal(SIGTERM)
    _ = server.wait(timeout: .seconds(10))
    let number = Int(display.dropFirst()) ?? 0
    _ = Self.taken.withLock { $0.remove(number) }
  }

  private func xdotool(_ arguments: [String]) throws -> CommandResult {
    try runCommand("/usr/bin/xdotool", arguments, environment: ["DISPLAY": display])
  }

  /// Waits (a bound, not a speed check) until a window whose name contains `name` shows.
  public func waitForWindow(named name: String) async throws {
    for _ in 0..<1500 {
      let found = try xdotool(["search", "--onlyvisible", "--name", name])
      if found.status == 0, !found.stdout.isEmpty { return }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw TestingError("no window named '\(name)' showed on \(display)")
  }

  /// Waits (a bound) until no window whose name contains `name` shows.
  public func waitForNoWindow(named name: String) async throws {
    for _ in 0..<1500 {
      let found = try xdotool(["search", "--onlyvisible", "--name", name])
      if found.status != 0 || found.stdout.isEmpty { return }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw TestingError("the window named '\(name)' stayed on \(display)")
  }

  /// Presses `keys` (xdotool's names: `Return`, `shift+Tab`, `space`) in turn.
  public func press(_ keys: String...) throws {
    let result = try xdotool(["key", "--delay", "50"] + keys)
    guard result.status == 0 else { throw TestingError("xdotool key: \(result.stderr)") }
  }

  /// Types `text` into the focused window.
  public func type(_ text: String) throws {
    let result = try xdotool(["type", "--delay", "20", text])
    guard result.status == 0 else { throw TestingError("xdotool type: \(result.stderr)") }
  }

  /// Keeps what the screen shows as `NN-step.png` in `screenshots`, once it has settled (two
  /// captures in a row alike, within a bound: a key's effect is drawn a moment after xdotool
  /// returns); returns its path.
  @discardableResult
  public func screenshot(_ step: String) throws -> String {
    let index = shots.withLock { count in
      count += 1
      return count
    }
    let path = screenshots + "/" + String(format: "%02d", index) + "-\(step).png"
    var previous = try capture(to: path)
    for _ in 0..<50 {
      Thread.sleep(forTimeInterval: 0.05)
      let next = try capture(to: path)
      if next == previous { break }
      previous = next
    }
    return path
  }

  private func capture(to path: String) throws -> Data {
    let result = try runCommand(
      "/usr/bin/import", ["-display", display, "-window", "root", path])
    guard result.status == 0 else { throw TestingError("import: \(result.stderr)") }
    return try Data(contentsOf: URL(fileURLWithPath: path))
  }
}
