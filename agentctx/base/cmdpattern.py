"""Command patterns that know the command: `git push --force` matched against a command's words as the tool reads them.

A pattern (a `command:` anchor or guard pattern's value) is a command, its subcommands and the options that matter.
For a tool in TOOLS, both the pattern and the command are read the tool's way before they are compared:
- its global options (with their values) before the subcommand are skipped: `git -C dir -c k=v --no-pager push`;
- option spellings are one option: `-f` is `--force`, `-fu` is `-f -u`, `--force-with-lease[=ref]` and
  `--force-if-includes` are force pushes, so is a `+refspec`; `--opt=value` is `--opt`; terraform's `-auto-approve`
  is `--auto-approve`; options that take a value take it (`git commit -m "push -f"` has no `-f`);
- then the pattern's words that are not options must begin the command's (`docker system prune`), and every option
  of the pattern must be among the command's, in any order (`rm -rf` matches `rm -r -f x` and `rm --force -R x`).
Other tools are matched by word prefix (`make deploy` matches `make deploy prod`). A runner in front of a command is
seen through (`python -m pip install`, `uv run alembic upgrade`, `npx prisma migrate reset`, `docker-compose`).
No regular expressions: every step is a loop over the words.
"""

# A tool: global options taking a value / flags, subcommand aliases, option aliases (by subcommand, "*" for all),
# options taking a value (by subcommand, "*" for all), options implied by others, single-dash long options.
_Spec = dict  # keys: gvalues, subs, aliases, values, implies, dash_long, nosub

TOOLS: "dict[str, _Spec]" = {
    "git": {
        "gvalues": {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env",
                    "--super-prefix", "--list-cmds", "--attr-source"},
        "aliases": {
            "push": {"-f": "--force", "-d": "--delete", "-u": "--set-upstream", "-n": "--dry-run", "-q": "--quiet",
                     "-v": "--verbose", "--no-force-with-lease": "", "--force-with-lease": "--force-with-lease"},
            "branch": {"-D": "--delete --force", "-d": "--delete", "-f": "--force", "-M": "--move --force",
                       "-m": "--move", "-C": "--copy --force", "-c": "--copy"},
            "tag": {"-d": "--delete", "-f": "--force"},
            "clean": {"-f": "--force", "-n": "--dry-run", "-i": "--interactive", "-q": "--quiet"},
            "commit": {"-n": "--no-verify", "-a": "--all", "-q": "--quiet", "-v": "--verbose", "-s": "--signoff"},
            "checkout": {"-f": "--force", "-q": "--quiet"},
            "switch": {"-f": "--force", "--discard-changes": "--force", "-c": "--create", "-C": "--force-create"},
            "rebase": {"-i": "--interactive"},
            "reset": {"-q": "--quiet"},
            "stash": {"-u": "--include-untracked", "-a": "--all"},
            "rm": {"-r": "-r", "-f": "--force", "-n": "--dry-run", "-q": "--quiet"},
            "add": {"-A": "--all", "-f": "--force", "-u": "--update", "-p": "--patch", "-n": "--dry-run"},
            "merge": {"-n": "--no-stat", "-s": "--strategy", "-X": "--strategy-option"},
            "pull": {"-f": "--force", "-r": "--rebase"},
            "fetch": {"-f": "--force", "-p": "--prune"},
        },
        "values": {
            "push": {"-o", "--push-option", "--repo", "--receive-pack", "--exec"},
            "commit": {"-m", "--message", "-F", "--file", "-C", "--reuse-message", "-c", "--reedit-message",
                       "--author", "--date", "--fixup", "--squash", "-t", "--template", "--trailer"},
            "checkout": {"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"},
            "switch": {"-c", "-C", "--create", "--force-create", "--orphan", "--conflict"},
            "tag": {"-m", "--message", "-F", "--file", "-u", "--local-user"},
            "merge": {"-m", "-F", "--file", "-s", "--strategy", "-X", "--strategy-option"},
            "rebase": {"--onto", "-s", "--strategy", "-X", "--strategy-option", "-x", "--exec"},
            "clean": {"-e", "--exclude"},
            "stash": {"-m", "--message"},
            "log": {"-n", "--max-count", "--author", "--grep", "--since", "--until", "--format", "--pretty"},
        },
        "implies": {"--force-with-lease": "--force", "--force-if-includes": "--force", "--mirror": "--force"},
        # git takes a long option by any prefix that names only one (`--force-w` is --force-with-lease)
        "longs": {"push": ("--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete",
                           "--dry-run", "--tags", "--set-upstream", "--verbose", "--quiet", "--all", "--branches",
                           "--follow-tags", "--atomic", "--no-verify", "--verify", "--porcelain", "--prune",
                           "--push-option", "--repo", "--signed", "--no-signed", "--thin", "--no-thin",
                           "--receive-pack", "--exec", "--progress", "--recurse-submodules", "--ipv4", "--ipv6",
                           "--no-force-with-lease", "--no-force-if-includes", "--no-atomic"),
                  "reset": ("--hard", "--soft", "--mixed", "--merge", "--keep", "--quiet", "--patch"),
                  "clean": ("--force", "--dry-run", "--quiet", "--interactive", "--exclude"),
                  "commit": ("--no-verify", "--amend", "--all", "--message", "--allow-empty", "--verify"),
                  "branch": ("--delete", "--force", "--move", "--copy")},
    },
    "npm": {
        "gvalues": {"--prefix", "-w", "--workspace", "--registry", "--userconfig", "--cache", "--loglevel"},
        "subs": {"i": "install", "in": "install", "ins": "install", "inst": "install", "insta": "install",
                 "instal": "install", "isnt": "install", "isnta": "install", "isntal": "install",
                 "isntall": "install", "add": "install", "rm": "uninstall", "r": "uninstall", "un": "uninstall",
                 "unlink": "uninstall", "remove": "uninstall", "t": "test", "tst": "test", "run-script": "run",
                 "rum": "run", "urn": "run", "x": "exec", "up": "update", "upgrade": "update", "c": "config",
                 "ln": "link", "ic": "ci", "clean-install": "ci", "install-clean": "ci"},
        "aliases": {"*": {"-g": "--global", "-f": "--force", "-D": "--save-dev", "-S": "--save", "-E": "--save-exact",
                          "-O": "--save-optional", "-y": "--yes"}},
        "values": {"*": {"--prefix", "-w", "--workspace", "--registry", "--tag", "--otp", "--access", "--loglevel"}},
    },
    "pnpm": {
        "gvalues": {"-C", "--dir", "--filter", "-F", "--workspace-dir", "--reporter", "--loglevel"},
        "subs": {"i": "install", "rm": "remove", "un": "remove", "uninstall": "remove", "t": "test",
                 "run-script": "run", "up": "update", "upgrade": "update", "x": "exec"},
        "aliases": {"*": {"-D": "--save-dev", "-P": "--save-prod", "-g": "--global", "-r": "--recursive",
                          "-w": "--workspace-root", "-f": "--force"}},
        "values": {"*": {"--filter", "-F", "-C", "--dir", "--tag", "--otp", "--reporter"}},
    },
    "yarn": {
        "gvalues": {"--cwd"},
        "subs": {"rm": "remove"},
        "aliases": {"*": {"-D": "--dev", "-W": "--ignore-workspace-root-check", "-E": "--exact", "-P": "--peer"}},
        "values": {"*": {"--cwd", "--tag", "--otp", "--access", "--registry"}},
    },
    "pip": {
        "gvalues": {"--python", "--cache-dir", "--log", "--proxy", "--timeout", "--retries", "--exists-action"},
        "aliases": {"*": {"-U": "--upgrade", "-e": "--editable", "-r": "--requirement", "-y": "--yes",
                          "-I": "--ignore-installed", "-q": "--quiet", "-v": "--verbose", "-c": "--constraint",
                          "-t": "--target", "-i": "--index-url"}},
        "values": {"*": {"-r", "--requirement", "-e", "--editable", "-c", "--constraint", "-i", "--index-url",
                         "--extra-index-url", "-t", "--target", "--prefix", "--root", "--python", "--platform",
                         "-f", "--find-links", "--src", "--cache-dir"}},
    },
    "uv": {
        "gvalues": {"--directory", "--project", "--cache-dir", "--config-file", "--color"},
        "aliases": {"*": {"-U": "--upgrade", "-p": "--python", "-r": "--requirements", "-q": "--quiet",
                          "-v": "--verbose"}},
        "values": {"*": {"-p", "--python", "-r", "--requirements", "--with", "--extra", "--group", "--index-url",
                         "--package", "--index", "--directory", "--project", "-c", "--constraint", "--python-platform",
                         "--extra-index-url", "--default-index", "-o", "--output-file"}},
    },
    "alembic": {
        "gvalues": {"-c", "--config", "-n", "--name", "-x"},
        "aliases": {"*": {"-m": "--message", "-r": "--rev-range"}},
        "values": {"*": {"-m", "--message", "--rev-id", "--head", "--splice", "--branch-label", "--depends-on",
                         "--version-path", "-r", "--rev-range", "--tag"}},
    },
    "terraform": {
        "gvalues": set(),
        "dash_long": True,
        "aliases": {},
        "values": {"*": {"--var", "--var-file", "--target", "--replace", "--out", "--lock-timeout", "--parallelism",
                         "--state", "--state-out", "--backup", "--chdir"}},
    },
    "tofu": {"gvalues": set(), "dash_long": True, "aliases": {},
             "values": {"*": {"--var", "--var-file", "--target", "--replace", "--out", "--chdir"}}},
    "kubectl": {
        "gvalues": {"-n", "--namespace", "--context", "--kubeconfig", "-s", "--server", "--cluster", "--user",
                    "--token", "-v", "--as", "--as-group", "--request-timeout", "--certificate-authority"},
        "aliases": {"*": {"-A": "--all-namespaces", "-R": "--recursive", "-f": "--filename", "-l": "--selector",
                          "-n": "--namespace", "-o": "--output", "-k": "--kustomize", "-i": "--stdin",
                          "-t": "--tty"}},
        "values": {"*": {"-n", "--namespace", "--context", "--kubeconfig", "-f", "--filename", "-l", "--selector",
                         "-o", "--output", "-c", "--container", "--field-selector", "-k", "--kustomize", "--type",
                         "--replicas", "--image", "--timeout", "-p", "--patch", "--grace-period", "--cascade",
                         "-s", "--server", "--cluster", "--user", "--token", "--as"}},
    },
    "docker": {
        "gvalues": {"-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "--tlscacert", "--tlscert",
                    "--tlskey"},
        "aliases": {"*": {"-f": "--force", "-a": "--all", "-v": "--volumes", "-q": "--quiet", "-d": "--detach",
                          "-t": "--tty", "-i": "--interactive"},
                    "build": {"-f": "--file", "-t": "--tag", "-q": "--quiet"},
                    "compose": {"-f": "--file", "-p": "--project-name", "-v": "--volumes", "-d": "--detach"},
                    "run": {"-v": "--volume", "-e": "--env", "-p": "--publish", "-d": "--detach",
                            "-w": "--workdir", "-u": "--user"},
                    "exec": {"-e": "--env", "-w": "--workdir", "-u": "--user", "-d": "--detach"}},
        "values": {"*": {"--filter", "--format", "-t", "--time", "--signal", "-s"},
                   "build": {"-f", "--file", "-t", "--tag", "--build-arg", "--target", "--platform", "--label"},
                   "compose": {"-f", "--file", "-p", "--project-name", "--profile", "--env-file",
                               "--project-directory", "--ansi", "-t", "--timeout"},
                   "run": {"-v", "--volume", "-e", "--env", "-p", "--publish", "--name", "-w", "--workdir", "-u",
                           "--user", "--network", "--entrypoint", "--env-file", "--platform", "--mount", "-l",
                           "--label", "--memory", "-m", "--cpus"},
                   "exec": {"-e", "--env", "-w", "--workdir", "-u", "--user", "--env-file"}},
    },
    "rm": {"gvalues": set(), "nosub": True,
           "aliases": {"*": {"-R": "-r", "--recursive": "-r", "--force": "-f", "-d": "--dir", "-v": "--verbose",
                             "-i": "--interactive"}}, "values": {}},
}
# Spellings of a tool's name (the command word as given), and the words a runner puts in front of a command.
_NAMES = {"pip3": "pip", "docker-compose": "docker compose", "podman": "docker", "terraform.exe": "terraform"}
_RUNNERS = {("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"), ("hatch", "run"), ("rye", "run"),
            ("pnpm", "exec"), ("pnpm", "dlx"), ("yarn", "exec"), ("yarn", "dlx"), ("bun", "x"), ("bundle", "exec"),
            ("pipx", "run"), ("npm", "exec")}
_RUNNER_WORDS = {"npx", "pnpx", "bunx", "uvx"}
_RUNNER_VALUES = {"--with", "-w", "--python", "-p", "--package", "--from", "--extra", "--env-file", "--group", "-c"}
RUNNER_DEPTH = 3


def _tool_name(word: str) -> str:
    if word.startswith("python") and all(c.isdigit() or c == "." for c in word[6:]):
        return "python"
    if word.startswith("pip") and all(c.isdigit() or c == "." for c in word[3:]):
        return "pip"
    return _NAMES.get(word, word)


def _spelled(words: "tuple[str, ...] | list[str]") -> "list[str]":
    """The words with the tool's name as TOOLS knows it (`pip3` -> `pip`, `docker-compose` -> `docker compose`)."""
    if not words:
        return []
    return _tool_name(words[0]).split() + list(words[1:])


def _unwrap_runner(words: "list[str]") -> "list[str] | None":
    """The command a runner runs (`python -m pip install x` -> `pip install x`), or None."""
    if not words:
        return None
    head = words[0]
    if head == "python":
        i = 1
        while i < len(words):
            w = words[i]
            if w == "-m" and i + 1 < len(words):
                return _spelled(words[i + 1:])
            if w in ("-X", "-W") or (w.startswith("-") and w[1:2] in "XW" and len(w) == 2):
                i += 2
            elif w.startswith("-") and not w.startswith(("-c", "--")):
                i += 1
            else:
                return None
        return None
    if head in _RUNNER_WORDS:
        i = 1
    elif len(words) > 1 and (head, words[1]) in _RUNNERS:
        i = 2
    else:
        return None
    while i < len(words) and words[i].startswith("-"):
        if words[i] == "--":
            i += 1
            break
        i += 2 if words[i] in _RUNNER_VALUES else 1
    return _spelled(words[i:]) if i < len(words) else None


def forms(words: "tuple[str, ...] | list[str]") -> "list[list[str]]":
    """The command as given (its tool's name spelled as TOOLS knows it) and each command a runner in front runs."""
    out = [_spelled(words)]
    while len(out) <= RUNNER_DEPTH:
        inner = _unwrap_runner(out[-1])
        if not inner:
            break
        out.append(inner)
    return out


def names(words: "tuple[str, ...] | list[str]") -> "list[str]":
    """The tool names a command can match a pattern under (index keys): its own and those of what a runner runs."""
    return [f[0] for f in forms(words) if f]


def _options(word: str, spec: _Spec, sub: str, out: "set[str]") -> bool:
    """Add one option word's options, canonical, to `out`; True when the next word is its value."""
    aliases = {**spec.get("aliases", {}).get("*", {}), **spec.get("aliases", {}).get(sub, {})}
    values = spec.get("values", {}).get("*", set()) | spec.get("values", {}).get(sub, set())
    if spec.get("dash_long") and not word.startswith("--") and len(word) > 2:
        word = "-" + word
    if word.startswith("--"):
        name = word.split("=", 1)[0]
        longs = spec.get("longs", {}).get(sub, ())
        if name not in longs and len(name) > 3:
            found = [o for o in longs if o.startswith(name)]
            if len(found) == 1:
                name = found[0]
        for canon in aliases.get(name, name).split():
            out.add(canon)
        return "=" not in word and name in values
    for k, letter in enumerate(word[1:], 1):
        opt = "-" + letter
        for canon in aliases.get(opt, opt).split():
            out.add(canon)
        if opt in values:
            return k == len(word) - 1
    return False


def read(words: "tuple[str, ...] | list[str]") -> "tuple[list[str], set[str]]":
    """(words that are not options, options canonical) of a command of a tool in TOOLS, the tool's name first."""
    spec = TOOLS[words[0]]
    i, n = 1, len(words)
    gvalues = spec.get("gvalues", set())
    aliases: "dict[str, list[str]]" = {}
    if not spec.get("nosub"):
        while i < n and words[i].startswith("-") and words[i] != "-":
            w = words[i]
            if spec.get("dash_long") and w.startswith("-chdir"):
                i += 1 if "=" in w else 2
                continue
            if words[0] == "git" and w == "-c" and i + 1 < n and words[i + 1].startswith("alias."):
                name, _, value = words[i + 1][6:].partition("=")  # `git -c alias.p='push -f' p`
                if not value.startswith("!"):
                    aliases[name] = value.split()[:16]
            i += 2 if (w in gvalues and "=" not in w) else 1
    if aliases and i < n and words[i] in aliases:
        words = [*words[:i], *aliases[words[i]], *words[i + 1:]]
        n = len(words)
    positional = [words[0]]
    options: "set[str]" = set()
    sub = ""
    implied = spec.get("implies", {})
    while i < n:
        w = words[i]
        i += 1
        if w == "--":
            positional.extend(words[i:])
            break
        if w.startswith("-") and len(w) > 1:
            if _options(w, spec, sub, options):
                i += 1
        elif words[0] == "git" and sub == "push" and w.startswith("+") and len(w) > 1:
            options.add("--force")  # `git push origin +main`: a forced update of that ref
            positional.append(w[1:])
        elif words[0] == "git" and sub == "push" and w.startswith(":") and len(w) > 1:
            options.add("--delete")
            positional.append(w[1:])
        else:
            if not sub and not spec.get("nosub"):
                w = spec.get("subs", {}).get(w, w)
                sub = w
            positional.append(w)
    options.discard("")
    for opt in list(options):
        if opt in implied:
            options.add(implied[opt])
    return positional, options


def matches(pattern: str, words: "tuple[str, ...] | list[str]") -> bool:
    """Whether a command's words (base/shell.py's, wrappers already stripped) are what the pattern names."""
    want = _spelled(pattern.split())
    if not want or not words:
        return False
    for form in forms(words):
        if not form or form[0] != want[0]:
            continue
        if want[0] not in TOOLS:
            if form[:len(want)] == want:
                return True
            continue
        w_pos, w_opts = read(want)
        c_pos, c_opts = read(form)
        if c_pos[:len(w_pos)] == w_pos and w_opts <= c_opts:
            return True
    return False


def git_subcommand(args: "tuple[str, ...]") -> "tuple[str, tuple[str, ...]]":
    """(subcommand, the words after it) of git's arguments, its global options skipped."""
    gvalues = TOOLS["git"]["gvalues"]
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if (args[i] in gvalues and "=" not in args[i]) else 1
    return (args[i], tuple(args[i + 1:])) if i < len(args) else ("", ())
