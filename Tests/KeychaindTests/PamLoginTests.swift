// SPDX-License-Identifier: MIT
//
// The PAM module every distribution ships, Debian's pam_gnome_keyring.so, unlocking keychaind
// at login and re-keying it on passwd, through the control socket. pamtester runs a throwaway
// PAM service under libpam-wrapper (so no file in /etc/pam.d is read or written); the wrapper's
// pam_set_items.so hands pam_gnome_keyring the passwords a login would have.

import Foundation
import KeychainTesting
import Testing

@Suite(
  .enabled(
    if: ["/usr/bin/pamtester", "/usr/lib/x86_64-linux-gnu/libpam_wrapper.so"].allSatisfy {
      FileManager.default.isExecutableFile(atPath: $0)
        || FileManager.default.fileExists(atPath: $0)
    }
      && FileManager.default.fileExists(
        atPath: "/lib/x86_64-linux-gnu/security/pam_gnome_keyring.so"),
    "pamtester, libpam-wrapper or libpam-gnome-keyring is not installed"))
struct PamLoginTests {
  static let wrapper = "/usr/lib/x86_64-linux-gnu/pam_wrapper"

  /// A PAM service like a display manager's: passwords set (where a real stack would ask),
  /// then pam_gnome_keyring in the auth, session and password stages.
  static func service(in directory: String) throws {
    let stack = """
      auth     required  \(wrapper)/pam_set_items.so
      auth     optional  pam_gnome_keyring.so
      account  required  \(wrapper)/pam_set_items.so
      session  optional  pam_gnome_keyring.so
      password required  \(wrapper)/pam_set_items.so
      password optional  pam_gnome_keyring.so use_authtok

      """
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try Data(stack.utf8).write(to: URL(fileURLWithPath: directory + "/keychaind-login"))
  }

  static func pamtester(
    _ daemon: DaemonProcess, _ services: String, _ operations: [String], _ items: [String: String],
    service: String = "keychaind-login"
  ) throws -> CommandResult {
    var environment = daemon.environment
    environment.merge(items) { $1 }
    environment.merge([
      "LD_PRELOAD": "/usr/lib/x86_64-linux-gnu/libpam_wrapper.so", "PAM_WRAPPER": "1",
      "PAM_WRAPPER_SERVICE_DIR": services,
    ]) { $1 }
    let user = String(cString: getpwuid(getuid()).pointee.pw_name)
    return try runCommand(
      "/usr/bin/pamtester", [service, user] + operations, environment: environment)
  }

  static func loginLocked(_ daemon: DaemonProcess) throws -> Bool? {
    try ControlSocketTests.loginLocked(daemon)
  }

  @Test func loggingInUnlocksAndPasswdReKeys() async throws {
    // The first login creates the login collection with the login password.
    let daemon = try await DaemonProcess(password: nil)
    try await ControlSocketTests.waitForSocket(daemon)
    let services = daemon.home.path + "/pam.d"
    try Self.service(in: services)
    let first = try Self.pamtester(
      daemon, services, ["authenticate", "open_session"], ["PAM_AUTHTOK": "login pw"])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(try Self.loginLocked(daemon) == false, "\(daemon.log)")
    let stored = try daemon.run(
      "secret-tool", ["store", "--label=Mail", "app", "mail"], stdin: Array("kept".utf8))
    #expect(stored.status == 0)
    // The next boot: keychaind starts (bus activation) with login locked.
    _ = daemon.kill(with: SIGTERM)
    try await daemon.start()
    try await ControlSocketTests.waitForSocket(daemon)
    #expect(try Self.loginLocked(daemon) == true)

    // A wrong password: the login still succeeds (the module is optional), the keyring stays
    // locked.
    let wrong = try Self.pamtester(
      daemon, services, ["authenticate", "open_session"], ["PAM_AUTHTOK": "not it"])
    #expect(wrong.status == 0, "\(wrong.stderr)")
    #expect(try Self.loginLocked(daemon) == true)

    let login = try Self.pamtester(
      daemon, services, ["authenticate", "open_session"], ["PAM_AUTHTOK": "login pw"])
    #expect(login.status == 0, "\(login.stderr)")
    #expect(try Self.loginLocked(daemon) == false, "\(daemon.log)")
    #expect(try daemon.run("secret-tool", ["lookup", "app", "mail"]).stdout == "kept")
    try Self.expectDoctorRoute(daemon, services, "by pam_gnome_keyring (in pamtester)")

    // passwd: pam_gnome_keyring sends CHANGE with the old and the new password.
    let passwd = try Self.pamtester(
      daemon, services, ["chauthtok"], ["PAM_OLDAUTHTOK": "login pw", "PAM_AUTHTOK": "new pw"])
    #expect(passwd.status == 0, "\(passwd.stderr)")
    #expect(daemon.log.contains("re-keyed the login collection through the control socket"))
    let locked = try daemon.run(KeychainctlTests.keychainctl, ["lock", "--collection", "Login"])
    #expect(locked.status == 0)
    let next = try Self.pamtester(
      daemon, services, ["authenticate", "open_session"], ["PAM_AUTHTOK": "new pw"])
    #expect(next.status == 0, "\(next.stderr)")
    #expect(try Self.loginLocked(daemon) == false, "\(daemon.log)")
    for password in ["login pw", "new pw", "not it"] {
      #expect(!daemon.log.contains(password), "no password in the log")
    }
  }

  /// Without pam_gnome_keyring: the stock pam_exec.so runs `keychainctl pam-unlock` with the
  /// password that just authenticated on its standard input.
  @Test func pamExecUnlocksWithoutPamGnomeKeyring() async throws {
    let daemon = try await DaemonProcess(password: nil)
    try await ControlSocketTests.waitForSocket(daemon)
    let services = daemon.home.path + "/pam.d"
    try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
    let stack = """
      auth     required  \(Self.wrapper)/pam_set_items.so
      auth     optional  pam_exec.so expose_authtok quiet \(KeychainctlTests.keychainctl) pam-unlock --socket \(ControlSocketTests.socket(daemon))

      """
    try Data(stack.utf8).write(to: URL(fileURLWithPath: services + "/keychaind-exec"))
    // A login that left no password (a fingerprint) makes no login keyring with an empty one.
    let none = try Self.pamtester(
      daemon, services, ["authenticate"], [:], service: "keychaind-exec")
    #expect(none.status == 0, "\(none.stderr)")
    #expect(try Self.loginLocked(daemon) == nil, "\(daemon.log)")
    let first = try Self.pamtester(
      daemon, services, ["authenticate"], ["PAM_AUTHTOK": "login pw"], service: "keychaind-exec")
    #expect(first.status == 0, "\(first.stderr)")
    #expect(try Self.loginLocked(daemon) == false, "\(daemon.log)")
    let locked = try daemon.run(KeychainctlTests.keychainctl, ["lock", "--collection", "Login"])
    #expect(locked.status == 0)
    let wrong = try Self.pamtester(
      daemon, services, ["authenticate"], ["PAM_AUTHTOK": "not it"], service: "keychaind-exec")
    #expect(wrong.status == 0, "\(wrong.stderr)")
    #expect(try Self.loginLocked(daemon) == true)
    let right = try Self.pamtester(
      daemon, services, ["authenticate"], ["PAM_AUTHTOK": "login pw"], service: "keychaind-exec")
    #expect(right.status == 0, "\(right.stderr)")
    #expect(try Self.loginLocked(daemon) == false, "\(daemon.log)")
    #expect(!daemon.log.contains("login pw"), "no password in the log")
    try Self.expectDoctorRoute(daemon, services, "by pam_exec (keychainctl pam-unlock)")
  }

  /// `keychainctl doctor` says login was unlocked at this boot, and by `route`.
  static func expectDoctorRoute(_ daemon: DaemonProcess, _ services: String, _ route: String)
    throws
  {
    let doctor = try DoctorTests.doctor(daemon.environment, pam: services)
    let line = doctor.stdout.split(separator: "\n").first {
      $0.contains("login unlock at this boot")
    }
    #expect(line?.hasPrefix("ok: ") == true && line?.hasSuffix(route) == true, "\(doctor.stdout)")
  }
}
