// SPDX-License-Identifier: MIT
//
// The names programs have in the desktop's menus, from their `.desktop` files (the XDG Desktop
// Entry specification), so that the access dialog says "Evolution" where the process is
// /usr/bin/evolution, or "Fractal (org.gnome.Fractal)" for a Flatpak app. Only files that root
// owns, in directories only root can change, are read: a name taken from a file the user's own
// programs could write would let any of them call itself "Firefox". The table is read on first
// use and again when one of its directories changes (an install or removal).

import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Display names from root-owned `.desktop` files (see the top of this file).
public final class DesktopNames: Sendable {
  /// The `applications` directories read, most important first.
  let directories: [String]
  /// The locale's languages, most specific first (`de_DE`, `de`), for `Name[de_DE]`.
  let languages: [String]
  /// Where a program name in `Exec=` is looked for.
  let searchPath: [String]
  /// Whether a directory's whole path is root's alone (a test may trust another).
  let isTrusted: @Sendable (String) -> Bool

  private struct Table {
    /// Each directory's modification time when it was read.
    var stamps: [String: Int] = [:]
    var byExecutable: [String: String] = [:]
    var byAppID: [String: String] = [:]
  }
  private let table = Mutex<Table?>(nil)

  /// The system's directories: `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`) and
  /// system-wide Flatpak's exports, each with `/applications`.
  public convenience init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    let data =
      (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 }
      ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
    let directories = (data + ["/var/lib/flatpak/exports/share"]).map { $0 + "/applications" }
    let locale =
      ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }
      .first { !$0.isEmpty } ?? "C"
    let path = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
    self.init(
      directories: directories, languages: Self.languages(locale),
      searchPath: path.map(String.init))
  }

  public init(
    directories: [String], languages: [String] = [], searchPath: [String] = [],
    isTrusted: @escaping @Sendable (String) -> Bool = IdentityResolver.isSystemFile
  ) {
    var seen = Set<String>()
    self.directories = directories.filter { seen.insert($0).inserted }
    self.languages = languages
    self.searchPath = searchPath
    self.isTrusted = isTrusted
  }

  /// The menu name of the program at `path` (an executable or a script, as the process runs
  /// it), if a trusted `.desktop` file starts it.
  public func name(forExecutable path: String) -> String? {
    current().byExecutable[path]
  }

  /// The menu name of Flatpak app `id`, if it is installed system-wide.
  public func name(forApp id: String) -> String? {
    current().byAppID[id]
  }

  /// `de_DE.UTF-8@euro` ⇒ `de_DE`, `de`; `C` and `POSIX` ⇒ none.
  public static func languages(_ locale: String) -> [String] {
    let bare = locale.split(separator: ".").first.map(String.init) ?? locale
    let base = bare.split(separator: "@").first.map(String.init) ?? bare
    guard !base.isEmpty, base != "C", base != "POSIX" else { return [] }
    let language = base.split(separator: "_").first.map(String.init) ?? base
    return language == base ? [base] : [base, language]
  }

  private func current() -> Table {
    let stamps = Dictionary(uniqueKeysWithValues: directories.map { ($0, stamp($0)) })
    return table.withLock { table in
      if let known = table, known.stamps == stamps { return known }
      var fresh = Table(stamps: stamps)
      for directory in directories where stamps[directory] != -1 {
        read(directory, into: &fresh)
      }
      table = fresh
      return fresh
    }
  }

  /// A directory's modification time in nanoseconds; -1 when it is missing or not trusted.
  private func stamp(_ directory: String) -> Int {
    var status = stat()
    guard isTrusted(directory), stat(directory, &status) == 0 else {
      return -1
    }
    return status.st_mtim.tv_sec * 1_000_000_000 + status.st_mtim.tv_nsec
  }

  /// Adds the trusted entries of `directory` that earlier directories did not name.
  private func read(_ directory: String, into table: inout Table) {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    for file in files.sorted() where file.hasSuffix(".desktop") {
      guard let path = trustedFile(directory + "/" + file, in: directory),
        let text = try? String(contentsOfFile: path, encoding: .utf8),
        let entry = Self.entry(text, languages: languages)
      else { continue }
      if let id = entry.flatpak
        ?? (directory.contains("/flatpak/") ? String(file.dropLast(8)) : nil)
      {
        if table.byAppID[id] == nil { table.byAppID[id] = entry.name }
        continue
      }
      guard let program = entry.program.flatMap(resolve) else { continue }
      if table.byExecutable[program] == nil { table.byExecutable[program] = entry.name }
    }
  }

  /// The real path of the entry at `path`, if root alone can write it: a regular file of
  /// root's, not writable by others, whose directory (when a link leads elsewhere, as Flatpak's
  /// exports do) is trusted as well.
  private func trustedFile(_ path: String, in directory: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    let real = String(cString: resolved)
    free(resolved)
    var status = stat()
    guard stat(real, &status) == 0, status.st_uid == 0, status.st_mode & 0o022 == 0,
      status.st_mode & S_IFMT == S_IFREG, status.st_size < 1 << 20
    else { return nil }
    let parent = String(real[..<(real.lastIndex(of: "/") ?? real.endIndex)])
    let realDirectory = realpath(directory, nil).map { pointer in
      defer { free(pointer) }
      return String(cString: pointer)
    }
    guard parent == realDirectory || isTrusted(parent) else { return nil }
    return real
  }

  /// An entry's name (in the best language), the program it runs (`TryExec`, else the first
  /// word of `Exec` past `env` and its assignments) and its Flatpak app id; nil for an entry
  /// that is not an application, is hidden, or has no name.
  static func entry(_ text: String, languages: [String]) -> (
    name: String, program: String?, flatpak: String?
  )? {
    var text = text
    let values = text.withUTF8 { keyValues($0, languages: languages) }
    guard values["Type"] == "Application", values["Hidden"] != "true",
      let name = (languages.lazy.compactMap { values["Name[\($0)]"] }.first ?? values["Name"]),
      !name.isEmpty
    else { return nil }
    let program = values["TryExec"] ?? values["Exec"].flatMap(Self.program(in:))
    return (String(name.prefix(80)), program, values["X-Flatpak"])
  }

  /// The `[Desktop Entry]` group's values of the keys `entry` reads (the first of each). Byte
  /// by byte, skipping every other line at its first byte: a desktop's menu files hold
  /// thousands of translated lines, and the first caller's identity waits for them (Foundation's
  /// trimming of every line took 60 million instructions for eight files).
  private static func keyValues(_ bytes: UnsafeBufferPointer<UInt8>, languages: [String])
    -> [String: String]
  {
    let wanted = Set(
      ["Type", "Hidden", "Name", "TryExec", "Exec", "X-Flatpak"] + languages.map { "Name[\($0)]" })
    let firstBytes = Set("THNEX".utf8)
    let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    func string(_ range: Range<Int>) -> String {
      String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
    var values: [String: String] = [:]
    var inEntry = false
    var next = 0
    while next < bytes.count {
      var start = next
      var end = start
      while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
      next = end + 1
      while start < end, isBlank(bytes[start]) { start += 1 }
      while end > start, isBlank(bytes[end - 1]) { end -= 1 }
      guard start < end else { continue }
      if bytes[start] == UInt8(ascii: "[") {
        inEntry = string(start..<end) == "[Desktop Entry]"
        continue
      }
      guard inEntry, firstBytes.contains(bytes[start]),
        let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "="))
      else { continue }
      var keyEnd = equals
      while keyEnd > start, isBlank(bytes[keyEnd - 1]) { keyEnd -= 1 }
      // A translation of another language's name is most of a file: left without a String.
      if languages.isEmpty, bytes[keyEnd - 1] == UInt8(ascii: "]") { continue }
      let key = string(start..<keyEnd)
      guard wanted.contains(key), values[key] == nil else { continue }
      var valueStart = equals + 1
      while valueStart < end, isBlank(bytes[valueStart]) { valueStart += 1 }
      values[key] = string(valueStart..<end)
    }
    return values
  }

  /// The program an `Exec` line runs: its first word past `env` and `NAME=value` words.
  static func program(in exec: String) -> String? {
    let words = exec.split(separator: " ").map { String($0).trimmingCharacters(in: ["\""]) }
    let skipped: (String) -> Bool = { $0 == "env" || $0 == "/usr/bin/env" || $0.contains("=") }
    return words.first { !skipped($0) }
  }

  /// The real path of `program` (a path, or a name looked up on the search path).
  private func resolve(_ program: String) -> String? {
    let candidates = program.hasPrefix("/") ? [program] : searchPath.map { $0 + "/" + program }
    for candidate in candidates where access(candidate, X_OK) == 0 {
      guard let real = realpath(candidate, nil) else { continue }
      defer { free(real) }
      return String(cString: real)
    }
    return nil
  }
}
