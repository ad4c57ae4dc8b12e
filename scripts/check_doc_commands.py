#!/usr/bin/env python3
"""Fails, listing each one, when a `kaisha` command shown in the user documentation's
shell blocks (README.md, docs/*.md, bench/README.md, examples/*/README.md) names a
subcommand `kaisha --help` does not list, or an option that subcommand's --help does
not show; and when a command's own --help lacks an example that passes the same check
or the docs page it names. Usage: scripts/check_doc_commands.py KAISHA_BINARY [REPOSITORY_ROOT]"""
import glob
import os
import re
import shlex
import subprocess
import sys

kaisha = os.path.abspath(sys.argv[1])
root = sys.argv[2] if len(sys.argv) > 2 else "."
os.chdir(root)


def help_text(args):
    r = subprocess.run([kaisha, *args, "--help"], capture_output=True, text=True, timeout=30)
    return r.stdout + r.stderr


top = help_text([])
subcommands = set(re.findall(r"^  ([a-z][a-z0-9-]*)\s{2,}", top.split("Subcommands:", 1)[1], re.M))
helps = {}
problems = []
checked = 0
def check_command(words, where):
    """Checks one command line already split into words; True when it was a kaisha command."""
    global checked
    while words and (re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]) or words[0] in ("sudo", "exec", "time")):
        words = words[1:]
    if not words or os.path.basename(words[0]) != "kaisha":
        return False
    args = words[1:]
    if not args or args[0].startswith("-"):
        for a in args:
            if a.startswith("--") and a.split("=", 1)[0] not in top:
                problems.append(f"{where}: kaisha has no option {a.split('=', 1)[0]}")
        checked += 1
        return True
    sub = args[0]
    if sub not in subcommands:
        problems.append(f"{where}: 'kaisha {sub}' is not a kaisha command")
        return True
    if sub not in helps:
        helps[sub] = help_text([sub])
    # A nested subcommand (kaisha journal compact) has its own help.
    key = sub
    nested = helps[sub].split("Subcommands:", 1)[1] if "Subcommands:" in helps[sub] else ""
    if len(args) > 1 and not args[1].startswith("-") and re.search(r"^  " + re.escape(args[1]) + r"\s", nested, re.M):
        key = sub + " " + args[1]
        if key not in helps:
            helps[key] = help_text([sub, args[1]])
    for a in args[1:]:
        if not a.startswith("--"):
            continue
        opt = a.split("=", 1)[0]
        if not re.search(re.escape(opt) + r"\b", helps[key]):
            problems.append(f"{where}: 'kaisha {key}' has no option {opt}")
    checked += 1
    return True


def split_words(text):
    try:
        return shlex.split(text, comments=False)
    except ValueError:
        return text.split()


pages = [p for p in ("README.md", "bench/README.md") if os.path.exists(p)] + sorted(glob.glob("docs/*.md")) + sorted(glob.glob("examples/*/README.md"))
for page in pages:
    in_shell = False
    lines = open(page, encoding="utf-8").read().split("\n")
    for number, line in enumerate(lines, 1):
        fence = re.match(r"^\s*```(\w*)", line)
        if fence:
            in_shell = not in_shell and fence.group(1) in ("sh", "bash", "console", "shell")
            continue
        if not in_shell:
            continue
        text = re.sub(r"^\s*\$\s+", "", line.split(" #", 1)[0]).strip()
        # The command may follow environment assignments, sudo or another command's `&&`/`|`.
        for part in re.split(r"&&|\|\||\||;", text):
            check_command(split_words(part), f"{page}:{number}")

# Every command's own --help shows an example that exists as shown, and its docs page.
for sub in sorted(subcommands):
    text = help_text([sub])
    example = re.search(r"^Example: (kaisha .*)$", text, re.M)
    more = re.search(r"^More: (\S+)$", text, re.M)
    if not example:
        problems.append(f"kaisha {sub} --help: no 'Example: kaisha ...' line")
    else:
        check_command(split_words(example.group(1)), f"kaisha {sub} --help")
    if not more:
        problems.append(f"kaisha {sub} --help: no 'More: docs/PAGE.md' line")
    elif not os.path.exists(more.group(1)):
        problems.append(f"kaisha {sub} --help: its page {more.group(1)} does not exist")

for p in problems:
    print(p)
if problems:
    print(f"check_doc_commands: {len(problems)} of the documented kaisha commands do not exist as shown")
    sys.exit(1)
if checked < 20:
    print(f"check_doc_commands: only {checked} kaisha commands found in the docs; is the extraction broken?")
    sys.exit(1)
print(f"check_doc_commands: all {checked} documented kaisha commands exist")
