// SPDX-License-Identifier: MIT
//
// A Python client (SecretStorage over jeepney) for the prompt flows, run as a real process so
// that it can be killed mid-prompt. It prints WAITING once Prompt() has returned, then the
// outcome: UNLOCKED / CREATED / CHANGED <result> or DISMISSED <result>.

import Foundation
import KeychainTesting

private let promptClientSource = """
  import sys, os, time
  import secretstorage
  from secretstorage.util import DBusAddressWrapper
  from secretstorage.defines import SS_PATH, SS_PREFIX
  from jeepney import MatchRule, MessageType
  PROMPT = 'org.freedesktop.Secret.Prompt'
  conn = secretstorage.dbus_init()
  service = DBusAddressWrapper(SS_PATH, SS_PREFIX + 'Service', conn)
  internal = DBusAddressWrapper(SS_PATH, 'org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface', conn)
  mode, args = sys.argv[1], sys.argv[2:]

  def run(prompt, word, dismiss_after=None):
      if prompt == '/':
          print('NOPROMPT', flush=True); return
      wrapper = DBusAddressWrapper(prompt, PROMPT, conn)
      rule = MatchRule(path=prompt, interface=PROMPT, member='Completed', type=MessageType.signal)
      with conn.filter(rule) as signals:
          wrapper.call('Prompt', 's', '')
          print('WAITING', flush=True)
          if dismiss_after:
              log = args[-1]
              while not (os.path.exists(log) and dismiss_after in open(log).read()): time.sleep(0.02)
              wrapper.call('Dismiss', '')
          dismissed, (signature, result) = conn.recv_until_filtered(signals, timeout=600).body
      print('DISMISSED' if dismissed else word, signature, result, flush=True)

  if mode == 'unlock':
      unlocked, prompt = service.call('Unlock', 'ao', [args[0]])
      run(prompt, 'UNLOCKED')
  elif mode == 'dismiss':
      unlocked, prompt = service.call('Unlock', 'ao', [args[0]])
      run(prompt, 'UNLOCKED', dismiss_after='HOLDING')
  elif mode == 'create':
      props = {SS_PREFIX + 'Collection.Label': ('s', args[0])}
      path, prompt = service.call('CreateCollection', 'a{sv}s', props, args[1])
      if path != '/': print('EXISTING', path)
      else: run(prompt, 'CREATED')
  elif mode == 'change':
      run(internal.call('ChangeWithPrompt', 'o', args[0])[0], 'CHANGED')
  elif mode == 'master':
      # gnome-keyring's prompt-free route: create, lock, unlock with the password, change it.
      from secretstorage.util import open_session, format_secret
      session = open_session(conn)
      secret = lambda text: format_secret(session, text.encode(), 'text/plain')
      props = {SS_PREFIX + 'Collection.Label': ('s', 'Scripted')}
      path = internal.call('CreateWithMasterPassword', 'a{sv}(oayays)', props, secret('first'))[0]
      service.call('Lock', 'ao', [path])
      try:
          internal.call('UnlockWithMasterPassword', 'o(oayays)', path, secret('wrong'))
          print('wrong password accepted'); sys.exit(1)
      except Exception as error:
          print('WRONG', getattr(error, 'name', type(error).__name__))
      internal.call('UnlockWithMasterPassword', 'o(oayays)', path, secret('first'))
      internal.call('ChangeWithMasterPassword', 'o(oayays)(oayays)', path, secret('first'), secret('second'))
      service.call('Lock', 'ao', [path])
      internal.call('UnlockWithMasterPassword', 'o(oayays)', path, secret('second'))
      collection = secretstorage.Collection(conn, path, session)
      print('MASTER', path, collection.get_label(), collection.is_locked())
  """

/// The prompt client, started against a daemon; its output goes to a file that tests watch.
final class PromptClient {
  let process: ChildProcess
  let outputPath: String
  private let directory: TemporaryDirectory

  init(_ daemon: DaemonProcess, _ arguments: [String]) throws {
    directory = try TemporaryDirectory(prefix: "prompt-client")
    let script = directory.path + "/client.py"
    try promptClientSource.write(toFile: script, atomically: true, encoding: .utf8)
    outputPath = directory.path + "/stdout"
    process = try ChildProcess(
      "/usr/bin/python3", [script] + arguments, environment: daemon.environment,
      stdoutFile: outputPath, stderrFile: directory.path + "/stderr")
  }

  var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
  var errors: String {
    (try? String(contentsOfFile: directory.path + "/stderr", encoding: .utf8)) ?? ""
  }

  /// Waits (a bound, not a speed check) until the output contains `text`.
  func waitFor(_ text: String) async throws {
    for _ in 0..<1500 {
      if output.contains(text) { return }
      if process.poll() != nil, !output.contains(text) {
        throw TestingError("client ended without '\(text)': \(output) \(errors)")
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw TestingError("client never printed '\(text)': \(output) \(errors)")
  }

  /// Runs to the end and returns the output.
  func finish() throws -> String {
    guard let status = process.wait(timeout: hangBound) else {
      throw TestingError("client did not finish: \(output)")
    }
    guard status == 0 else { throw TestingError("client failed (\(status)): \(output) \(errors)") }
    return output
  }
}
