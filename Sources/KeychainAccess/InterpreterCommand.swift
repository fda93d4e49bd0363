// SPDX-License-Identifier: MIT
//
// Which script an interpreter runs, read from its command line the way the interpreter reads
// it: short options clustered (`-BEs`), an option's argument attached or in the next word
// (`-Wignore`, `-W ignore`), `--` ending the options, the first other word the script. A
// command line that makes the interpreter run code that is not in the script file (`-c`,
// `-e`, `-r lib`, `-I dir`, `-i`, a login shell) names no script, and neither does an option
// this table does not know: a program could use either to run its own code under another
// script's name (`python3 '-cexec(…)' owner.py`, `python3 -W owner.py evil.py`).

/// What an interpreter's command line runs.
public enum InterpreterCommand: Equatable, Sendable {
  /// A script file, as the command line names it (relative to the working directory when it
  /// does not start with `/`).
  case script(String)
  /// A module (`python3 -m NAME`).
  case module(String)
  /// No script file that identifies it, and why.
  case none(String)

  /// Reads `arguments` (`arguments[0]` the interpreter) for the interpreter named `name`.
  public static func parse(_ arguments: [String], interpreter name: String) -> InterpreterCommand {
    guard let grammar = Grammar.of(name) else { return .none("\(name) is not an interpreter") }
    var index = 1
    while index < arguments.count {
      let word = arguments[index]
      index += 1
      if word == "--" { break }
      if word == "-" { return .none("it reads its program from its input") }
      if word.hasPrefix("--") {
        let name = String(word.split(separator: "=", maxSplits: 1)[0])
        if let why = grammar.refusedLong[name] { return .none(why) }
        if grammar.longFlags.contains(name) { continue }
        if grammar.longWithArgument.contains(name) {
          if !word.contains("=") { index += 1 }
          continue
        }
        return .none("it runs with an option keychaind does not know (\(name))")
      }
      guard word.hasPrefix("-") || (grammar.plusOptions && word.hasPrefix("+")), word.count > 1
      else {
        index -= 1
        break
      }
      // A cluster of short options.
      var letters = Substring(word.dropFirst())
      while let letter = letters.first {
        letters = letters.dropFirst()
        if let why = grammar.refused[letter] { return .none(why) }
        // The option's argument: the rest of the word, or the next one.
        let argument =
          letters.isEmpty ? (index < arguments.count ? arguments[index] : "") : String(letters)
        if letter == grammar.module {
          return argument.isEmpty ? .none("-m names no module") : .module(argument)
        }
        if letter == grammar.file {
          // php -f FILE: the script is the option's argument.
          return argument.isEmpty ? .none("-f names no file") : .script(argument)
        }
        if grammar.flags.contains(letter) { continue }
        if grammar.digits.contains(letter) {
          // Octal or decimal digits; perl's `-0xHH` in hexadecimal.
          letters = letters.drop(while: \.isNumber)
          if letter == "0", letters.first == "x" {
            letters = letters.dropFirst().drop(while: \.isHexDigit)
          }
          continue
        }
        if grammar.attached.contains(letter) {
          letters = ""
          continue
        }
        if grammar.withArgument.contains(letter) {
          if letters.isEmpty { index += 1 }
          letters = ""
          continue
        }
        return .none("it runs with an option keychaind does not know (-\(letter))")
      }
    }
    guard index < arguments.count else { return .none("it runs no script file") }
    return .script(arguments[index])
  }
}

/// One interpreter family's options (see the top of the file).
struct Grammar {
  /// Letters that take no argument.
  var flags: Set<Character> = []
  /// Letters whose argument is the rest of the word, or the next word.
  var withArgument: Set<Character> = []
  /// Letters whose argument is the rest of the word only (perl `-i.bak`, `-F:`).
  var attached: Set<Character> = []
  /// Letters followed by optional digits in the same word (perl `-l`, `-0777`).
  var digits: Set<Character> = []
  /// Letters that make it run code from elsewhere: why.
  var refused: [Character: String] = [:]
  /// The letter that runs a module, if any (python `-m`).
  var module: Character?
  /// The letter whose argument is the script (php `-f`).
  var file: Character?
  var longFlags: Set<String> = []
  var longWithArgument: Set<String> = []
  var refusedLong: [String: String] = [:]
  /// Whether `+o` and the like are options too (shells).
  var plusOptions = false

  static let code = "it runs code given on its command line"
  static let library = "it loads code named on its command line"
  static let directory = "it looks for its code in a directory named on its command line"
  static let input = "it runs code from its input as well"
  static let path = "it looks its script up in PATH"
  static let startUp = "it runs start-up files before its script"
  static let debugger = "it runs under a debugger"

  /// The grammar of the interpreter with file name `name`, nil if none is known.
  static func of(_ name: String) -> Grammar? {
    func family(_ base: String) -> Bool {
      guard name.hasPrefix(base) else { return false }
      return name.dropFirst(base.count).allSatisfy { $0.isNumber || $0 == "." }
    }
    if family("python") { return python }
    if family("perl") { return perl }
    if family("ruby") { return ruby }
    if name == "node" || name == "nodejs" { return node }
    if family("lua") { return lua }
    if family("php") { return php }
    if ["sh", "bash", "dash", "zsh", "ksh", "mksh", "fish"].contains(name) { return shell }
    return nil
  }

  static let python = Grammar(
    flags: Set("bBdEhIOPqRsSuvVx?"), withArgument: ["W", "X"],
    refused: ["c": code, "i": input], module: "m",
    longFlags: ["--help", "--version", "--help-env", "--help-xoptions", "--help-all"],
    longWithArgument: ["--check-hash-based-pycs"])

  static let perl = Grammar(
    flags: Set("acfnpstTUwWX"), attached: Set("iFCD"), digits: Set("l0"),
    refused: [
      "e": code, "E": code, "M": library, "m": library, "I": directory, "d": debugger, "S": path,
      "x": "it takes its script from the middle of a file",
    ])

  static let ruby = Grammar(
    flags: Set("acdlnpsvwy"), withArgument: ["E"], attached: Set("FKTi"), digits: Set("0W"),
    refused: [
      "e": code, "r": library, "I": directory, "C": "it changes directory before it starts",
      "x": "it takes its script from the middle of a file", "S": path,
    ], longFlags: ["--verbose", "--jit", "--yjit", "--disable-gems"],
    refusedLong: ["--require": library])

  static let node = Grammar(
    refused: ["e": code, "p": code, "r": library, "i": input, "c": "it only checks its script"],
    longFlags: [
      "--no-warnings", "--no-deprecation", "--enable-source-maps", "--trace-warnings",
      "--use-strict", "--max-old-space-size", "--stack-size", "--unhandled-rejections",
    ],
    refusedLong: [
      "--eval": code, "--print": code, "--require": library, "--import": library,
      "--loader": library, "--experimental-loader": library, "--interactive": input,
      "--inspect": debugger, "--inspect-brk": debugger, "--inspect-wait": debugger,
    ])

  static let lua = Grammar(
    flags: ["W", "E"], refused: ["e": code, "l": library, "i": input])

  static let php = Grammar(
    flags: Set("nqeHwsl"),
    refused: [
      "r": code, "d": "it sets configuration that can load other code", "c": directory,
      "a": input, "B": code, "R": code, "F": library, "E": code, "z": library,
    ], file: "f")

  static let shell = Grammar(
    flags: Set("abefhkmnptuvxBEHPTN"), withArgument: ["o", "O"],
    refused: [
      "c": "it runs a command string", "i": startUp, "l": startUp, "s": input,
      "C": "it runs a command string",
    ], longFlags: ["--norc", "--noprofile", "--posix", "--noediting", "--no-config"],
    refusedLong: [
      "--login": startUp, "--rcfile": startUp, "--init-file": startUp, "--command": code,
      "--init-command": code, "--interactive": startUp, "--debugger": debugger,
    ], plusOptions: true)
}
