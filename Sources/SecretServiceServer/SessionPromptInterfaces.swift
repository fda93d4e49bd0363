// SPDX-License-Identifier: MIT

import KeychainDBus
import Logging
import SecretServiceProtocol

/// `org.freedesktop.Secret.Session`: only its owner may close it.
struct SessionInterface: DBusInterface {
  let state: ServiceState
  let id: String

  let interfaceDescription = InterfaceDescription(
    SecretService.sessionInterface, methods: [MethodDescription("Close")])

  func call(_ request: MethodRequest) async throws -> [DBusValue] {
    try await state.closeSession(id, caller: request.caller)
    return []
  }
}

/// `org.freedesktop.Secret.Prompt`. `Prompt()` returns at once and `Completed` follows it.
///
/// No prompter (pinentry) is wired in yet: a prompt completes dismissed, with the result type
/// clients check (`ao` for unlocking, `o` for creating), and the log says how to unlock without
/// one.
struct PromptInterface: DBusInterface {
  let state: ServiceState
  let id: String
  let logger: Logger

  let interfaceDescription = InterfaceDescription(
    SecretService.promptInterface,
    methods: [
      MethodDescription("Prompt", inputs: [.init("window-id", .string)]),
      MethodDescription("Dismiss"),
    ],
    signals: [
      SignalDescription("Completed", [.init("dismissed", .boolean), .init("result", .variant)])
    ])

  func call(_ request: MethodRequest) async throws -> [DBusValue] {
    let prompt = try await state.takePrompt(id, caller: request.caller)
    if request.member == "Prompt" {
      logger.notice(
        "no password prompter is available; unlock from a terminal with: keychaind --unlock < password-file"
      )
    }
    let path = SecretPath.prompt(id).objectPath
    let connection = request.connection
    request.afterReply {
      try? await connection.emit(
        SecretService.promptInterface, "Completed", from: path,
        [.boolean(true), .variant(prompt.action.emptyResult)])
    }
    return []
  }
}
