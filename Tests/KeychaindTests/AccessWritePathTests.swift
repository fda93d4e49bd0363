// SPDX-License-Identifier: MIT
//
// Every write path under the same rule as CreateItem, on the real keychaind in `protect`
// (SECURITY.md [S1] and [S3]): an import may not replace another program's item (a
// password-less textual login.keyring with newer copies), and a program may not make another
// keyring the default, create one with a password it chose, or delete one holding other
// programs' items unless the user allows it in a dialog. Each answer is in the audit log.

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct AccessWritePathTests {
  typealias Setup = AccessControlTests.Setup

  /// Chromium's key, as Chromium stores it through libsecret.
  static let chromium = [
    "application", "chrome", "xdg:schema", "chrome_libsecret_os_crypt_password_v2",
  ]

  /// gnome-keyring's textual format: one keyring of one item with Chromium's attributes,
  /// newer than anything stored in the test, whose secret is `secret`.
  static func textualLogin(secret: String) -> String {
    """
    [keyring]
    display-name=Login
    ctime=1795389381
    mtime=0
    lock-on-idle=false
    lock-after=false

    [1]
    item-type=0
    display-name=Chromium Safe Storage
    secret=\(secret)
    mtime=4102444800
    ctime=1795389400

    [1:attribute0]
    name=application
    type=string
    value=chrome

    [1:attribute1]
    name=xdg:schema
    type=string
    value=chrome_libsecret_os_crypt_password_v2

    """
  }

  /// A program writes a password-less login.keyring holding a newer copy
  /// of Chromium's key, and asks for it to be imported.
  @Test func anImportDoesNotReplaceAnotherProgramsItem() async throws {
    let setup = try await Setup()
    let stored = try setup.daemon.run(
      "secret-tool", ["store", "--label=Chromium Safe Storage"] + Self.chromium,
      stdin: Array("chrome-key-ORIGINAL".utf8), environment: AccessControlTests.display)
    #expect(stored.status == 0, "\(stored.stderr)")
    let directory = setup.daemon.home.path + "/evil-keyrings"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try Self.textualLogin(secret: "attacker-KNOWN").write(
      toFile: directory + "/login.keyring", atomically: true, encoding: .utf8)
    let imported = try setup.keychainctl(["import", "gnome-keyring", "--dir", directory])
    #expect(imported.stdout.contains("1 newer copies not taken"), "\(imported.stdout)")
    #expect(imported.stdout.contains("0 updated"), "\(imported.stdout)")
    // Its owner still reads its own secret, with no dialog.
    let read = try setup.daemon.run(
      "secret-tool", ["lookup"] + Self.chromium, environment: AccessControlTests.display)
    #expect(read.stdout == "chrome-key-ORIGINAL", "\(read.stderr)")
    #expect(setup.pinentry.confirmations == 0)
    // The refusal is in the audit log, under the program that asked for the import.
    let records = try await setup.audit { records in
      records.contains { $0["op"] as? String == "write" && $0["decision"] as? String == "denied" }
    }
    let refused = records.first {
      $0["op"] as? String == "write" && $0["decision"] as? String == "denied"
    }
    let app = refused?["app"] as? [String: Any]
    #expect((app?["key"] as? String)?.hasPrefix("via:exe:") == true, "\(records)")
    // keychainctl is keychaind's executable run by that name: the key names the executable,
    // the record's display the tool.
    let executable = URL(fileURLWithPath: Binaries.keychaind).resolvingSymlinksInPath().path
    #expect((app?["key"] as? String)?.hasPrefix("via:exe:\(executable)@") == true)
    #expect((app?["display"] as? String)?.hasPrefix("keychainctl, run by") == true, "\(records)")
    #expect(refused?["item"] as? String == "/org/freedesktop/secrets/collection/login/1")
  }

  /// A SecretStorage-speaking script: `create LABEL` makes a collection with gnome-keyring's
  /// CreateWithMasterPassword, `alias PATH` points `default` at a collection, `default` prints
  /// where `default` points, `delete` deletes the default collection (running the prompt it
  /// may get). Each prints what happened, or the D-Bus error's name and message.
  static let client = """
    import sys, secretstorage
    from jeepney import DBusAddress, new_method_call
    from secretstorage.util import exec_prompt
    conn = secretstorage.dbus_init()
    service = DBusAddress("/org/freedesktop/secrets", "org.freedesktop.secrets",
                          "org.freedesktop.Secret.Service")
    def call(address, method, signature, body):
        reply = conn.send_and_get_reply(new_method_call(address, method, signature, body))
        if reply.header.message_type.name == "error":
            print("ERROR", reply.header.fields.get(4), reply.body[0] if reply.body else "")
            sys.exit(0)
        return reply.body
    mode = sys.argv[1]
    if mode == "create":
        session = call(service, "OpenSession", "sv", ("plain", ("s", "")))[1]
        internal = DBusAddress("/org/freedesktop/secrets", "org.freedesktop.secrets",
                               "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface")
        print(call(internal, "CreateWithMasterPassword", "a{sv}(oayays)",
                   ({"org.freedesktop.Secret.Collection.Label": ("s", sys.argv[2])},
                    (session, b"", b"attacker password", "text/plain")))[0])
    elif mode == "alias":
        call(service, "SetAlias", "so", ("default", sys.argv[2]))
        print("SET")
    elif mode == "default":
        print(call(service, "ReadAlias", "s", ("default",))[0])
    elif mode == "delete":
        collection = DBusAddress("/org/freedesktop/secrets/aliases/default",
                                 "org.freedesktop.secrets", "org.freedesktop.Secret.Collection")
        prompt = call(collection, "Delete", "", ())[0]
        if prompt == "/":
            print("DELETED")
        else:
            dismissed, _ = exec_prompt(conn, prompt)
            print("DISMISSED" if dismissed else "DELETED")
    """

  func run(_ setup: Setup, _ arguments: [String], display: Bool = true) throws -> String {
    let script = setup.daemon.home.path + "/changer.py"
    try Self.client.write(toFile: script, atomically: true, encoding: .utf8)
    let result = try setup.daemon.run(
      "/usr/bin/python3", [script] + arguments,
      environment: display ? AccessControlTests.display : [:])
    #expect(result.status == 0, "\(result.stderr)\n\(setup.daemon.log)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func aNewDefaultKeyringOrOneWithAProgramsOwnPasswordIsAskedAbout() async throws {
    let setup = try await Setup(confirmations: [.cancel, .ok, .cancel, .ok])
    try setup.store("s3cret")
    let login = "/org/freedesktop/secrets/collection/login"
    // Denied: nothing made.
    let refused = try run(setup, ["create", "Evil"])
    #expect(refused.contains("AccessDenied") && refused.contains("was not allowed"), "\(refused)")
    let description = setup.pinentry.log.first { $0.hasPrefix("SETDESC") } ?? ""
    #expect(
      description.contains("wants to create a keyring “Evil” with a password it chose"),
      "\(description)")
    // Allowed: made; then pointing `default` at it is asked about too, and denied.
    let made = try run(setup, ["create", "Evil"])
    #expect(made.hasPrefix("/org/freedesktop/secrets/collection/"), "\(made)")
    let aliased = try run(setup, ["alias", made])
    #expect(aliased.contains("AccessDenied"), "\(aliased)")
    #expect(try run(setup, ["default"]) == login)
    #expect(
      setup.pinentry.log.contains { $0.contains("wants to make the keyring “Evil” your default") },
      "\(setup.pinentry.log)")
    #expect(try run(setup, ["alias", made]) == "SET")
    #expect(try run(setup, ["default"]) == made)
    #expect(setup.pinentry.confirmations == 4)
    // Without a display nobody can be asked: refused, saying so.
    let headless = try run(setup, ["alias", login], display: false)
    #expect(headless.contains("no display"), "\(headless)")
    #expect(try run(setup, ["default"]) == made)
    let decisions = try await setup.decisions(["create denied": 1, "alias denied": 1])
    #expect(decisions.contains("create allowed-once") && decisions.contains("alias allowed-once"))
  }

  @Test func aKeyringHoldingOtherProgramsItemsIsDeletedOnlyIfTheUserAllows() async throws {
    let setup = try await Setup(confirmations: [.cancel, .ok])
    try setup.store("s3cret")
    #expect(try run(setup, ["delete"]) == "DISMISSED")
    #expect(
      setup.pinentry.log.contains {
        $0.contains("wants to delete the keyring “Login”")
          && $0.contains("1 password(s) other programs stored")
      }, "\(setup.pinentry.log)")
    #expect(try setup.lookup(by: "secret-tool").stdout == "s3cret")
    let headless = try run(setup, ["delete"], display: false)
    #expect(headless.contains("AccessDenied") && headless.contains("no display"), "\(headless)")
    #expect(try run(setup, ["delete"]) == "DELETED")
    #expect(try setup.lookup(by: "secret-tool").stdout.isEmpty)
    _ = try await setup.decisions(["delete denied": 1, "delete allowed-once": 1])
  }
}
