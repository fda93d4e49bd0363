// SPDX-License-Identifier: MIT
//
// Interpreters' command lines read as each interpreter reads them: which word is the script,
// and which lines name none because they run other code first.

import KeychainAccess
import Testing

@Suite struct InterpreterCommandTests {
  func parse(_ line: String, _ name: String? = nil) -> InterpreterCommand {
    let words = line.split(separator: " ").map(String.init)
    return InterpreterCommand.parse(words, interpreter: name ?? words[0])
  }

  func names(_ line: String, _ script: String, _ name: String? = nil) {
    #expect(parse(line, name) == .script(script), "\(line)")
  }

  func refuses(_ line: String, _ name: String? = nil) {
    guard case .none = parse(line, name) else {
      Issue.record("\(line) should name no script, got \(parse(line, name))")
      return
    }
  }

  @Test func python() {
    names("python3 sync.py --flag", "sync.py")
    names("python3 -u -B sync.py", "sync.py")
    names("python3 -W ignore -X dev sync.py", "sync.py")
    names("python3 -Wignore sync.py", "sync.py")
    names("python3 -W owner.py evil.py", "evil.py")
    names("python3 -- -odd.py", "-odd.py")
    names("python3.11 --check-hash-based-pycs never s.py", "s.py")
    #expect(parse("python3 -m keyring get a b") == .module("keyring"))
    #expect(parse("python3 -mkeyring get") == .module("keyring"))
    refuses("python3 -c code owner.py")
    refuses("python3 -cexec(x) owner.py")
    refuses("python3 -Bc code owner.py")
    refuses("python3 -i owner.py")
    refuses("python3 - owner.py")
    refuses("python3 --weird owner.py")
    refuses("python3")
  }

  @Test func perlRubyNodeLuaPhp() {
    names("perl -w -l script.pl", "script.pl")
    names("perl -wl015 script.pl", "script.pl")
    names("perl -i.bak script.pl", "script.pl")
    refuses("perl -e code owner.pl")
    refuses("perl -wle code owner.pl")
    refuses("perl -Mevil owner.pl")
    refuses("perl -I/tmp/evil owner.pl")
    refuses("perl -d owner.pl")
    names("ruby -w script.rb", "script.rb")
    refuses("ruby -revil owner.rb")
    refuses("ruby -C /tmp owner.rb")
    refuses("ruby -e code owner.rb")
    names("node --no-warnings app.js", "app.js")
    names("node --max-old-space-size=512 app.js", "app.js")
    refuses("node -r ./evil.js app.js")
    refuses("node --require=./evil.js app.js")
    refuses("node --inspect app.js")
    refuses("node -e code app.js")
    names("lua5.4 script.lua", "script.lua")
    refuses("lua5.4 -e code script.lua")
    names("php -n -f script.php", "script.php")
    names("php script.php", "script.php")
    refuses("php -d auto_prepend_file=/tmp/x script.php")
    refuses("php -r code script.php")
  }

  @Test func shells() {
    names("sh sync.sh", "sync.sh")
    names("bash -e -o pipefail sync.sh", "sync.sh")
    names("bash +o posix --norc sync.sh", "sync.sh")
    refuses("sh -c command")
    refuses("bash -c command sync.sh")
    refuses("bash -ec command")
    refuses("bash -l sync.sh")
    refuses("bash --login sync.sh")
    refuses("bash -i sync.sh")
    refuses("bash --rcfile /tmp/x sync.sh")
    refuses("dash -s")
    refuses("zsh -c x")
    refuses("fish --init-command x s.fish")
  }

  @Test func anythingElseIsNoInterpreter() {
    refuses("sleep 5")
  }
}
