// SPDX-License-Identifier: MIT
//
// The tricks of the same-user review of `protect` (SECURITY.md, "Same-user processes"), each shown to
// the resolver as the kernel facts it would leave, in memory: a program in a mount namespace
// of its own, a copy of a program named like a terminal, a renamed parent, one's own tmux, an
// interpreter's options and variables, a script changed after its process started. Each must
// come out as an identity that owns nothing of the program it poses as.

import KeychainAccess
import KeychainTesting
import Testing

@Suite struct IdentityTrickTests {
  let system = FakeSystem()
  var resolver: IdentityResolver {
    IdentityResolver(facts: system, names: DesktopNames(directories: []))
  }

  func identity(_ pid: UInt32) -> AppIdentity {
    resolver.identity(pid: pid, startTime: nil, arrival: 5000)
  }

  init() {
    for program in [
      "/usr/bin/yes", "/usr/bin/python3.11", "/usr/bin/secret-tool", "/usr/bin/bash",
      "/usr/bin/dash", "/usr/bin/tmux", "/usr/bin/gnome-terminal-server", "/usr/bin/find",
      "/usr/bin/gdbus", "/usr/sbin/sshd", "/usr/bin/evolution", "/usr/bin/perl",
      "/usr/bin/node", "/usr/lib/systemd/systemd",
    ] {
      system.file(program)
    }
  }

  // MARK: I1: another mount namespace

  @Test func aProgramInAMountNamespaceOfItsOwnIsNotTheProgramAtItsPath() {
    // bwrap --ro-bind python3 /usr/bin/yes: inside, the path reads /usr/bin/yes.
    let inside = Namespaces(mount: 4_026_532_999, user: 4_026_531_837)
    let pid = system.process(
      "/usr/bin/yes", ["x.py"], namespaces: inside, running: system.files["/usr/bin/python3.11"])
    let seen = identity(pid)
    #expect(seen.kind == .unknown)
    #expect(seen.display.contains("namespace of its own"), "\(seen.display)")
  }

  @Test func aProgramWhoseFileIsNotTheOneAtItsPathIsUnknown() {
    // Same namespace, but the running file and the path disagree (a forged link, a race).
    let pid = system.process("/usr/bin/yes", running: system.files["/usr/bin/python3.11"])
    let seen = identity(pid)
    #expect(seen.kind == .unknown)
    #expect(seen.display.contains("not the one at /usr/bin/yes"), "\(seen.display)")
    #expect(identity(system.process("/usr/bin/yes")).key == "exe:/usr/bin/yes")
  }

  @Test func aRequesterInAMountNamespaceOfItsOwnIsNobody() {
    // bwrap --ro-bind /bin/dash /usr/bin/find /usr/bin/find -c 'secret-tool …' left the front
    // end outside (forked before the unshare): its parent is the posing one.
    let inside = Namespaces(mount: 4_026_532_999, user: 4_026_532_998)
    let find = system.process(
      "/usr/bin/find", ["-c", "x"], namespaces: inside, running: system.files["/usr/bin/dash"])
    let tool = system.process("/usr/bin/secret-tool", ["lookup"], parent: find)
    let seen = identity(tool)
    #expect(seen.kind == .unknown, "\(seen.key)")
    #expect(seen.display.contains("namespace of its own"), "\(seen.display)")
  }

  // MARK: I2: a person at a terminal

  @Test func aRenamedParentOrACopyNamedLikeATerminalIsNoTerminal() {
    // prctl(PR_SET_NAME, "sshd") on a script's process: its command name is not its file.
    system.file("/home/u/spoof.py")
    let spoof = system.process("/usr/bin/python3.11", ["/home/u/spoof.py"], command: "sshd")
    let tool = system.process("/usr/bin/secret-tool", ["lookup"], parent: spoof)
    let seen = identity(tool)
    #expect(seen.key == "via:exe:/usr/bin/secret-tool@script:/usr/bin/python3.11:/home/u/spoof.py")
    // cp /bin/dash ~/xterm: a terminal's name, the user's file.
    system.file("/home/u/xterm")
    let xterm = system.process("/home/u/xterm", ["-c", "secret-tool lookup"])
    let copied = identity(system.process("/usr/bin/secret-tool", [], parent: xterm))
    #expect(!copied.isSessionBound)
    #expect(copied.key == "via:exe:/usr/bin/secret-tool@exe:/home/u/xterm", "\(copied.key)")
  }

  @Test func aTerminalTabOwnsWhatItStoredAndOneOfItsOwnTmuxIsAnotherTab() {
    let terminal = system.process("/usr/bin/gnome-terminal-server")
    let tab = system.process("/usr/bin/bash", [], parent: terminal, start: 1200)
    let stored = identity(system.process("/usr/bin/secret-tool", ["store"], parent: tab))
    #expect(stored.isSessionBound)
    #expect(stored.key == "via:exe:/usr/bin/secret-tool@session:b00710c4:\(tab):1200")
    #expect(stored.display == "secret-tool, run in a terminal")
    // Later, in the same tab, through another shell: the same session.
    let inner = system.process("/usr/bin/dash", [], parent: tab)
    #expect(identity(system.process("/usr/bin/secret-tool", [], parent: inner)).key == stored.key)
    // tmux -S own.sock new -d "secret-tool lookup …": a terminal, but a pane of its own.
    let tmux = system.process("/usr/bin/tmux", ["-S", "own.sock", "new", "-d"])
    let pane = system.process("/usr/bin/bash", [], parent: tmux, start: 1300)
    let other = identity(system.process("/usr/bin/secret-tool", ["lookup"], parent: pane))
    #expect(other.isSessionBound)
    #expect(other.key != stored.key)
    #expect(!other.mayHoldGrants)
  }

  @Test func anSSHLoginIsASessionOfItsOwn() {
    // sshd's user process is not dumpable (no executable to read); root started it.
    let listener = system.process("/usr/sbin/sshd", [], uid: 0)
    let monitor = system.process(nil, [], parent: listener, uid: 0, command: "sshd")
    let login = system.process(nil, [], parent: monitor, start: 3000, command: "sshd")
    let shell = system.process("/usr/bin/bash", [], parent: login)
    let seen = identity(system.process("/usr/bin/secret-tool", [], parent: shell))
    #expect(seen.key == "via:exe:/usr/bin/secret-tool@session:b00710c4:\(login):3000")
    #expect(seen.display == "secret-tool, run in a login (SSH or console)")
  }

  @Test func aNonDumpableParentThatRootDidNotStartIsNobody() {
    // prctl(PR_SET_DUMPABLE, 0) to be walked past unseen.
    let hidden = system.process(nil, [], command: "sshd")
    let seen = identity(system.process("/usr/bin/secret-tool", [], parent: hidden))
    #expect(seen.kind == .unknown)
  }

  // MARK: I3: scripts

  @Test func interpreterOptionsAreReadAsTheInterpreterReadsThem() {
    system.file("/home/u/owner.py")
    system.file("/home/u/evil.py")
    let python = "/usr/bin/python3.11"
    let code = identity(
      system.process(python, ["-cexec(open('evil').read())", "/home/u/owner.py"]))
    #expect(code.kind == .unknown)
    let warnings = identity(system.process(python, ["-W", "/home/u/owner.py", "/home/u/evil.py"]))
    #expect(warnings.key == "script:\(python):/home/u/evil.py")
    let clustered = identity(system.process(python, ["-BEc", "x", "/home/u/owner.py"]))
    #expect(clustered.kind == .unknown)
    let inspect = identity(system.process(python, ["-i", "/home/u/owner.py"]))
    #expect(inspect.kind == .unknown)
    #expect(inspect.display.contains("input"), "\(inspect.display)")
    let unknownOption = identity(system.process(python, ["--frobnicate", "/home/u/owner.py"]))
    #expect(unknownOption.kind == .unknown)
    #expect(identity(system.process(python, ["-u", "/home/u/owner.py"])).kind == .script)
  }

  @Test func aRelativeScriptIsTheOneInTheProcesssWorkingDirectory() {
    system.file("/home/u/work/owner.py")
    system.file("/home/u/evil/owner.py")
    let python = "/usr/bin/python3.11"
    let seen = identity(system.process(python, ["./owner.py"], cwd: "/home/u/evil"))
    #expect(seen.key == "script:\(python):/home/u/evil/owner.py")
    let honest = identity(system.process(python, ["owner.py"], cwd: "/home/u/work"))
    #expect(honest.key == "script:\(python):/home/u/work/owner.py")
  }

  @Test func aScriptChangedAfterItsProcessStartedIsUnknown() {
    // The process started 10 s after boot (1,000 ticks); the file changed 100 s after it.
    system.file("/home/u/owner.py", changed: 1_700_000_100)
    let seen = identity(system.process("/usr/bin/python3.11", ["/home/u/owner.py"]))
    #expect(seen.kind == .unknown)
    #expect(seen.display.contains("changed after it started"), "\(seen.display)")
  }

  @Test func variablesThatLoadOtherCodeMakeAProgramUnknown() {
    system.file("/home/u/owner.py")
    func with(_ variable: String, _ value: String, _ executable: String, _ arguments: [String])
      -> AppIdentity
    {
      let pid = system.process(executable, arguments)
      system.processes[pid]?.injecting = [variable: value]
      return identity(pid)
    }
    let python = "/usr/bin/python3.11"
    #expect(with("PYTHONPATH", "/home/u/evil", python, ["/home/u/owner.py"]).kind == .unknown)
    #expect(with("PYTHONINSPECT", "1", python, ["/home/u/owner.py"]).kind == .unknown)
    #expect(with("LD_PRELOAD", "/home/u/x.so", "/usr/bin/evolution", []).kind == .unknown)
    // Root's own directories load nothing the user chose; a variable for another
    // interpreter does not apply.
    #expect(with("LD_LIBRARY_PATH", "/usr/lib", "/usr/bin/evolution", []).kind == .system)
    #expect(with("PERL5OPT", "-Mevil", "/usr/bin/evolution", []).kind == .system)
    let traced = system.process("/usr/bin/evolution")
    system.processes[traced]?.tracer = 4242
    #expect(identity(traced).kind == .unknown)
  }

  @Test func genericDBusToolsAreFrontEnds() {
    system.file("/home/u/agent.py")
    let agent = system.process("/usr/bin/python3.11", ["/home/u/agent.py"])
    let seen = identity(system.process("/usr/bin/gdbus", ["call"], parent: agent))
    #expect(seen.kind == .via)
    #expect(seen.key == "via:exe:/usr/bin/gdbus@script:/usr/bin/python3.11:/home/u/agent.py")
  }

  // MARK: I6, I7: snaps and units

  @Test func aSnapIsASnapOnlyUnderItsAppArmorLabel() {
    let named = system.process("/usr/bin/yes")
    system.processes[named]?.snapName = "firefox"
    #expect(identity(named).key == "exe:/usr/bin/yes")
    system.processes[named]?.securityLabel = "snap.firefox.firefox (enforce)"
    #expect(identity(named).key == "snap:firefox")
  }

  @Test func aUnitNameIsNoRequester() {
    // systemd-run --user --unit=mbsync.service sh -c 'secret-tool …': the shell's parent is the
    // user manager; the unit's name is the user's choice.
    let manager = system.process("/usr/lib/systemd/systemd", ["--user"])
    let shell = system.process("/usr/bin/dash", ["-c", "secret-tool lookup"], parent: manager)
    let tool = system.process("/usr/bin/secret-tool", [], parent: shell)
    system.processes[tool]?.unit = "mbsync.service"
    #expect(identity(tool).kind == .unknown)
  }

  // MARK: Pins on ownership (I4)

  @Test func aChangedProgramIsAskedAboutWhatItOwns() {
    let owner = ItemOwner(key: "exe:/home/u/bin/app", pin: "sha256:aa")
    let same = AppIdentity(
      kind: .user, key: "exe:/home/u/bin/app", pin: "sha256:aa", display: "app", verified: true)
    var changed = same
    changed.pin = "sha256:bb"
    #expect(
      AccessPolicy.decide(same, owner: owner, grants: [], allowedOnce: false) == .allow(.owner))
    #expect(
      AccessPolicy.decide(changed, owner: owner, grants: [], allowedOnce: false)
        == .ask(changed: true))
    // The owner's row round-trips through the store's text.
    #expect(ItemOwner(sealedText: owner.sealedText) == owner)
    #expect(
      ItemOwner(sealedText: "exe:/usr/bin/evolution") == ItemOwner(key: "exe:/usr/bin/evolution"))
  }

  @Test func theFileAKeyIsPinnedToIsFoundInEachKindOfKey() {
    let system = { (path: String) in path.hasPrefix("/usr/") }
    #expect(AppIdentity.pinnedFile(ofKey: "exe:/home/u/app", isSystemFile: system) == "/home/u/app")
    #expect(AppIdentity.pinnedFile(ofKey: "exe:/usr/bin/app", isSystemFile: system) == nil)
    #expect(
      AppIdentity.pinnedFile(ofKey: "script:/usr/bin/python3:/home/u/a@b.py", isSystemFile: system)
        == "/home/u/a@b.py")
    #expect(
      AppIdentity.pinnedFile(
        ofKey: "via:exe:/home/u/st@2@exe:/usr/bin/mbsync", isSystemFile: system) == "/home/u/st@2")
    #expect(AppIdentity.pinnedFile(ofKey: "flatpak:org.example.App", isSystemFile: system) == nil)
  }
}
