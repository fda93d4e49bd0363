// SPDX-License-Identifier: MIT
//
// The seeds' sample code (`keychain-samples`, built from the seeds' text with `import Keychain`)
// run as a program against each backend: keychaind on a private bus, the embedded store with no
// bus at all, and gnome-keyring where it is installed. What a sample stores, secret-tool finds,
// and the reverse.

import Foundation
import KeychainTesting
import Testing

@Suite struct KeychainSamplesTests {
  static var samples: String { Binaries.helper("keychain-samples") }

  /// What `keychain-samples all` prints when every step behaves as the seeds describe.
  static let expected = """
    added alice
    found alice s3cret
    added bob
    accounts alice bob
    deleted
    added alice
    updated alice
    found alice n3w
    key <SecKey RSA 2048 bits, private> same true

    """

  @Test(.readsAnotherProgramsItems) func theSamplesRunOnKeychaindAndInteroperateWithSecretTool()
    async throws
  {
    let daemon = try await DaemonProcess()
    var environment = daemon.environment
    environment["KEYCHAIN_BACKEND"] = "secret-service"
    func samples(_ arguments: [String]) throws -> CommandResult {
      try runCommand(Self.samples, arguments, environment: environment)
    }
    let all = try samples(["all"])
    #expect(all.stdout == Self.expected, "\(all.stdout) \(all.stderr)")
    #expect(all.status == 0)
    // The Internet password is a NetworkPassword item to libsecret.
    let lookup = try daemon.run(
      "secret-tool", ["lookup", "server", "www.example.com", "user", "alice"])
    #expect(lookup.stdout == "n3w")
    // And what secret-tool stores, the sample finds.
    #expect(try samples(["delete"]).status == 0)
    let stored = try daemon.run(
      "secret-tool",
      [
        "store", "--label=carol", "xdg:schema", "org.gnome.keyring.NetworkPassword", "user",
        "carol", "server", "www.example.com",
      ], stdin: Array("from secret-tool".utf8))
    #expect(stored.status == 0)
    #expect(try samples(["find"]).stdout == "found carol from secret-tool\n")
    // A duplicate add is the seeds' errSecDuplicateItem, reported through SecCopyErrorMessageString.
    let duplicate = try samples(["add", "carol", "again"])
    #expect(duplicate.status == 1)
    #expect(
      duplicate.stdout
        == "failed: OSStatus -25299: The specified item already exists in the keychain.\n")
    #expect(daemon.isRunning)
    _ = daemon.terminate()
  }

  @Test func theSamplesRunOnTheEmbeddedStoreWithNoBus() throws {
    let home = try TemporaryDirectory(prefix: "samples-embedded")
    var environment = ProcessInfo.processInfo.environment
    environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
    environment.removeValue(forKey: "KEYCHAIN_BACKEND")
    environment["HOME"] = home.path
    environment["XDG_DATA_HOME"] = home.path + "/data"
    let all = try runCommand(Self.samples, ["all"], environment: environment)
    #expect(all.stdout == Self.expected, "\(all.stdout) \(all.stderr)")
    // With no bus the default is the embedded store, in its private directory.
    let directory = home.path + "/data/keychain-embedded"
    var info = stat()
    #expect(stat(directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
      #expect(stat(directory + "/" + name, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(name)")
      let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
      #expect(bytes.range(of: Data("www.example.com".utf8)) == nil, "\(name) holds plaintext")
    }
    // A second process finds what the first stored.
    #expect(
      try runCommand(Self.samples, ["find"], environment: environment).stdout
        == "found alice n3w\n")
  }

  @Test(.enabled(if: GnomeKeyring.executable != nil, "gnome-keyring is not installed"))
  func theSamplesRunOnGnomeKeyring() async throws {
    let gnome = try await GnomeKeyring()
    var environment = gnome.environment
    environment["KEYCHAIN_BACKEND"] = "secret-service"
    let all = try runCommand(Self.samples, ["all"], environment: environment)
    #expect(all.stdout == Self.expected, "\(all.stdout) \(all.stderr)")
    let lookup = try runCommand(
      "secret-tool", ["lookup", "server", "www.example.com", "user", "alice"],
      environment: environment)
    #expect(lookup.stdout == "n3w")
  }

  /// gnome-keyring with no keyring answers the default alias with UnknownMethod; the library
  /// creates the collection as libsecret does, and a prompt nobody can show is the user saying
  /// no (errSecUserCanceled), not an internal failure.
  @Test(.enabled(if: GnomeKeyring.executable != nil, "gnome-keyring is not installed"))
  func aFreshGnomeKeyringWithNoPrompterIsUserCanceled() async throws {
    let gnome = try await GnomeKeyring(login: false)
    var environment = gnome.environment
    environment["KEYCHAIN_BACKEND"] = "secret-service"
    let add = try runCommand(Self.samples, ["add", "zed", "pw"], environment: environment)
    #expect(add.stdout == "failed: OSStatus -128: User canceled the operation.\n", "\(add.stderr)")
  }
}
