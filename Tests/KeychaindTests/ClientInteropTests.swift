// SPDX-License-Identifier: MIT
//
// Python SecretStorage (plain and DH sessions) and gdbus against the real keychaind.

import Foundation
import KeychainTesting
import Testing

/// A SecretStorage session of the whole API surface clients use; prints OK or raises.
private let secretStorageScript = """
  import sys, secretstorage
  from secretstorage.dhcrypto import Session
  conn = secretstorage.dbus_init()
  coll = secretstorage.get_default_collection(conn)
  assert coll.collection_path == '/org/freedesktop/secrets/aliases/default', coll.collection_path
  assert coll.get_label() == 'Login', coll.get_label()
  assert not coll.is_locked()
  big = bytes(range(256)) * 4096
  a = coll.create_item('Item A', {'app': 'test', 'n': '1'}, b'secret A \\xe2\\x9c\\x93', content_type='text/plain')
  b = coll.create_item('Item B', {'app': 'test', 'n': '2'}, big, content_type='application/octet-stream')
  twins = [coll.create_item('Twin', {'twin': '1'}, b'x') for _ in range(2)]
  assert twins[0].item_path != twins[1].item_path, 'replace=False must keep both'
  assert a.get_secret() == b'secret A \\xe2\\x9c\\x93'
  assert b.get_secret() == big, 'large secret'
  assert b.get_secret_content_type() == 'application/octet-stream'
  found = list(coll.search_items({'app': 'test'}))
  assert len(found) == 2, found
  assert [i.get_label() for i in coll.search_items({'n': '2'})] == ['Item B']
  a.set_label('Renamed'); a.set_attributes({'app': 'test', 'n': '1', 'extra': 'yes'})
  assert a.get_label() == 'Renamed' and a.get_attributes()['extra'] == 'yes'
  a.set_secret(b'changed')
  assert a.get_secret() == b'changed'
  assert len(list(secretstorage.search_items(conn, {'extra': 'yes'}))) == 1
  assert any(c.collection_path.endswith('/collection/login') for c in secretstorage.get_all_collections(conn))
  a.delete()
  assert len(list(coll.search_items({'app': 'test'}))) == 1
  print('OK', 'dh' if conn is not None else '')
  """

@Suite(.serialized) struct ClientInteropTests {
  @Test func secretStorageDrivesTheWholeItemLifecycle() async throws {
    let daemon = try await DaemonProcess()
    let result = try daemon.run("/usr/bin/python3", ["-c", secretStorageScript])
    #expect(result.status == 0, "\(result.stderr)\n\(daemon.log)")
    #expect(result.stdout.hasPrefix("OK"))
  }

  /// SecretStorage 3.3 opens a session for each item whose secret it reads, on the script's
  /// one connection: reading 300 takes 300 sessions, on gnome-keyring as on keychaind.
  @Test func aScriptReadsHundredsOfSecretsOnOneConnection() async throws {
    let script = """
      import secretstorage
      conn = secretstorage.dbus_init()
      coll = secretstorage.get_default_collection(conn)
      for n in range(300):
          coll.create_item(f"many {n}", {"app": "many", "n": str(n)}, f"secret {n}".encode())
      secrets = {i.get_attributes()["n"]: i.get_secret() for i in coll.search_items({"app": "many"})}
      assert secrets == {str(n): f"secret {n}".encode() for n in range(300)}, len(secrets)
      print("OK")
      """
    let daemon = try await DaemonProcess()
    let ours = try daemon.run("/usr/bin/python3", ["-c", script])
    #expect(ours.stdout == "OK\n", "\(ours.stderr)")
    if GnomeKeyring.executable != nil {
      let gnome = try await GnomeKeyring()
      let theirs = try runCommand(
        "/usr/bin/python3", ["-c", script], environment: gnome.environment)
      #expect(theirs.stdout == "OK\n", "gnome-keyring: \(theirs.stderr)")
    }
  }

  @Test func pythonKeyringStoresAndReads() async throws {
    let daemon = try await DaemonProcess()
    let script = """
      import secretstorage, contextlib
      conn = secretstorage.dbus_init()
      # What python-keyring's SecretService backend does.
      coll = secretstorage.get_default_collection(conn)
      attrs = {'service': 'svc', 'username': 'bob', 'application': 'Python keyring library'}
      coll.create_item("Password for 'bob' on 'svc'", attrs, b'pw1', replace=True)
      coll.create_item("Password for 'bob' on 'svc'", attrs, b'pw2', replace=True)
      items = list(coll.search_items({'service': 'svc', 'username': 'bob'}))
      assert len(items) == 1 and items[0].get_secret() == b'pw2', items
      print('OK')
      """
    let result = try daemon.run("/usr/bin/python3", ["-c", script])
    #expect(result.stdout == "OK\n", "\(result.stderr)")
  }

  /// Client public keys shorter than 128 bytes (QCA and others strip leading zeros): the
  /// daemon must left-pad them, and pad the shared secret, or the two sides derive different
  /// AES keys and every secret is garbled.
  @Test func dhSessionsWithShortClientKeys() async throws {
    let daemon = try await DaemonProcess()
    let script = """
      import os, secretstorage
      from secretstorage.dhcrypto import Session, DH_PRIME_1024, int_to_bytes
      from secretstorage.util import DBusAddressWrapper, format_secret
      from secretstorage.defines import SS_PATH, SS_PREFIX, ALGORITHM_DH, ALGORITHM_PLAIN
      conn = secretstorage.dbus_init()
      service = DBusAddressWrapper(SS_PATH, SS_PREFIX + 'Service', conn)
      def dh_session(private):
          session = Session()
          session.my_private_key = private
          session.my_public_key = pow(2, private, DH_PRIME_1024)
          key = int_to_bytes(session.my_public_key)  # no left padding
          output, session.object_path = service.call('OpenSession', 'sv', ALGORITHM_DH, ('ay', key))
          assert len(output[1]) == 128, len(output[1])
          session.set_server_public_key(int.from_bytes(output[1], 'big'))
          return session, len(key)
      # A natural 127-byte key: search for a private key whose public key has a zero top byte.
      while True:
          private = int.from_bytes(os.urandom(128), 'big')
          if pow(2, private, DH_PRIME_1024).bit_length() <= 1016: break
      plain = Session(); plain.encrypted = False
      plain.object_path = service.call('OpenSession', 'sv', ALGORITHM_PLAIN, ('s', ''))[1]
      coll = secretstorage.get_default_collection(conn)
      for private in (private, 1):  # 1 gives the one-byte public key 2
          session, length = dh_session(private)
          value = os.urandom(40)
          coll.session = session
          item = coll.create_item('short key %d' % length, {'keylen': str(length)}, value)
          assert item.get_secret() == value, 'garbled through the DH session'
          assert secretstorage.Item(conn, item.item_path, plain).get_secret() == value
          print('OK', length)
      """
    let result = try daemon.run("/usr/bin/python3", ["-c", script])
    #expect(result.stdout == "OK 127\nOK 1\n", "\(result.stderr)\n\(daemon.log)")
  }

  /// The error name gdbus reports for a call, or the output.
  private func gdbus(
    _ daemon: DaemonProcess, _ path: String, _ method: String, _ arguments: [String]
  ) throws
    -> String
  {
    let result = try daemon.run(
      "gdbus",
      ["call", "--session", "-d", "org.freedesktop.secrets", "-o", path, "-m", method] + arguments)
    return result.status == 0 ? result.stdout : result.stderr
  }

  @Test func errorNamesForBadInput() async throws {
    let daemon = try await DaemonProcess()
    let service = "/org/freedesktop/secrets"
    let open = "org.freedesktop.Secret.Service.OpenSession"
    #expect(
      try gdbus(daemon, service, open, ["nope", "<''>"]).contains(
        "org.freedesktop.DBus.Error.NotSupported"))
    #expect(
      try gdbus(daemon, service, open, ["plain", "<@ay []>"]).contains(
        "org.freedesktop.DBus.Error.InvalidArgs"))
    #expect(
      try gdbus(daemon, service, open, ["dh-ietf1024-sha256-aes128-cbc-pkcs7", "<'x'>"])
        .contains("org.freedesktop.DBus.Error.InvalidArgs"))
    #expect(
      try gdbus(daemon, service, open, ["plain", "<''>"]).contains(
        "objectpath '/org/freedesktop/secrets/session/"))
    // A session of another connection (gdbus's has already gone) is NoSession.
    #expect(
      try gdbus(
        daemon, service, "org.freedesktop.Secret.Service.GetSecrets",
        ["[]", "/org/freedesktop/secrets/session/s1"]
      ).contains("org.freedesktop.Secret.Error.NoSession"))
    #expect(
      try gdbus(daemon, service, "org.freedesktop.Secret.Service.ReadAlias", ["nothing"])
        == "(objectpath '/',)\n")
    #expect(
      try gdbus(daemon, service, "org.freedesktop.Secret.Service.ReadAlias", ["default"])
        == "(objectpath '/org/freedesktop/secrets/collection/login',)\n")
    #expect(
      try gdbus(
        daemon, "/org/freedesktop/secrets/collection/none",
        "org.freedesktop.Secret.Collection.SearchItems", ["{}"]
      )
      .contains("org.freedesktop.DBus.Error.UnknownMethod: Object does not exist at path"))
    #expect(
      try gdbus(
        daemon, "/org/freedesktop/secrets/collection/login/999",
        "org.freedesktop.Secret.Item.Delete", []
      )
      .contains("org.freedesktop.DBus.Error.UnknownMethod: Object does not exist at path"))
    let unlock = try gdbus(
      daemon, service, "org.freedesktop.Secret.Service.Unlock",
      ["['/org/freedesktop/secrets/aliases/default']"])
    #expect(
      unlock == "([objectpath '/org/freedesktop/secrets/aliases/default'], objectpath '/')\n",
      "alias echoed as given")
    let introspection = try daemon.run(
      "gdbus", ["introspect", "--session", "-d", "org.freedesktop.secrets", "-o", service]
    ).stdout
    #expect(introspection.contains("interface org.freedesktop.Secret.Service"))
    #expect(introspection.contains("node collection"))
    #expect(daemon.isRunning, "\(daemon.log)")
  }
}
