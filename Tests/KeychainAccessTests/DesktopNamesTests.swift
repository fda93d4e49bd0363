// SPDX-License-Identifier: MIT
//
// Menu names from `.desktop` files: read as the specification says (the best language, TryExec
// before Exec, `env` skipped, hidden entries left out), by real path, for Flatpak apps by id,
// and only from files that root alone can write.

import Foundation
import KeychainAccess
import Testing

@Suite struct DesktopNamesTests {
  /// A new directory under /tmp, removed when the value is released (each test keeps its own
  /// alive to its end).
  final class Scratch {
    let path = NSTemporaryDirectory() + "desktop-names." + UUID().uuidString
    deinit { try? FileManager.default.removeItem(atPath: path) }
  }

  /// A directory of entries; its own path is trusted by the test (a temporary directory's is
  /// not root's alone), each file is still checked.
  func names(_ entries: [String: String], flatpak: Bool = false, mode: Int = 0o644) throws
    -> (DesktopNames, Scratch)
  {
    let root = Scratch()
    let directory = root.path + (flatpak ? "/flatpak/exports/share" : "/share") + "/applications"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for (file, text) in entries {
      try text.write(toFile: directory + "/" + file, atomically: false, encoding: .utf8)
      chmod(directory + "/" + file, mode_t(mode))
    }
    let names = DesktopNames(
      directories: [directory], languages: ["de_DE", "de"], searchPath: ["/usr/bin"],
      isTrusted: { $0 == directory })
    return (names, root)
  }

  @Test func anEntryNamesTheProgramItRunsInTheBestLanguage() throws {
    let (names, scratch) = try names([
      "tool.desktop": """
      [Desktop Entry]
      Type=Application
      Name=Tool
      Name[de]=Werkzeug
      Exec=env LANG=C true --flag %U

      [Desktop Action New]
      Name=Not this one
      """,
      "hidden.desktop": "[Desktop Entry]\nType=Application\nName=Hidden\nHidden=true\nExec=false\n",
      "try.desktop": "[Desktop Entry]\nType=Application\nName=Cat\nTryExec=/bin/cat\nExec=x\n",
    ])
    let real = { (path: String) in URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
    #expect(names.name(forExecutable: real("/usr/bin/true")) == "Werkzeug")
    #expect(names.name(forExecutable: real("/usr/bin/false")) == nil, "a hidden entry")
    #expect(names.name(forExecutable: real("/bin/cat")) == "Cat")
    withExtendedLifetime(scratch) {}
  }

  @Test func aFlatpakExportNamesItsApp() throws {
    let (names, scratch) = try names(
      ["org.example.App.desktop": "[Desktop Entry]\nType=Application\nName=Example\nExec=x\n"],
      flatpak: true)
    #expect(names.name(forApp: "org.example.App") == "Example")
    #expect(names.name(forApp: "org.example.Other") == nil)
    withExtendedLifetime(scratch) {}
  }

  @Test func aFileOthersCanWriteIsNotRead() throws {
    let (names, scratch) = try names(
      ["tool.desktop": "[Desktop Entry]\nType=Application\nName=Firefox\nExec=true\n"],
      mode: 0o666)
    #expect(names.name(forExecutable: "/usr/bin/true") == nil)
    withExtendedLifetime(scratch) {}
  }

  @Test func aLinkCountsOnlyWhereItLeadsIsTrusted() throws {
    let (names, root) = try names([
      "kept.desktop": "[Desktop Entry]\nType=Application\nName=True\nExec=true\n"
    ])
    let elsewhere = root.path + "/elsewhere"
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
    try "[Desktop Entry]\nType=Application\nName=Firefox\nExec=false\n".write(
      toFile: elsewhere + "/evil.desktop", atomically: false, encoding: .utf8)
    let directory = root.path + "/share/applications"
    try FileManager.default.createSymbolicLink(
      atPath: directory + "/evil.desktop", withDestinationPath: elsewhere + "/evil.desktop")
    try FileManager.default.createSymbolicLink(
      atPath: directory + "/same.desktop", withDestinationPath: directory + "/kept.desktop")
    let real = { (path: String) in URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
    #expect(names.name(forExecutable: real("/usr/bin/false")) == nil)
    #expect(names.name(forExecutable: real("/usr/bin/true")) == "True")
    withExtendedLifetime(root) {}
  }

  @Test func aDirectoryNotRootsAloneIsNotRead() throws {
    let root = Scratch()
    try FileManager.default.createDirectory(atPath: root.path, withIntermediateDirectories: true)
    try "[Desktop Entry]\nType=Application\nName=Firefox\nExec=true\n".write(
      toFile: root.path + "/tool.desktop", atomically: false, encoding: .utf8)
    // The temporary directory sits in /tmp, which everyone may write to.
    let names = DesktopNames(directories: [root.path], searchPath: ["/usr/bin"])
    #expect(names.name(forExecutable: "/usr/bin/true") == nil)
    withExtendedLifetime(root) {}
  }

  @Test func localesGiveTheirLanguages() {
    #expect(DesktopNames.languages("de_DE.UTF-8@euro") == ["de_DE", "de"])
    #expect(DesktopNames.languages("fr") == ["fr"])
    #expect(DesktopNames.languages("C.UTF-8").isEmpty)
    #expect(DesktopNames.languages("POSIX").isEmpty)
  }
}
