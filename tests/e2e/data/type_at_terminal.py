"""Runs a command at a pseudo-terminal and types into it, as a user would.

    type_at_terminal.py WAIT SEND [WAIT SEND ...] -- COMMAND [ARGS...]

For each pair it waits until the terminal's output shows WAIT (after what the
previous WAIT matched; "" waits for nothing), then types SEND, in which \\n is
Enter and \\x03 is Ctrl-C. Then it reads the output to the command's end,
writes it all to stdout and exits with the command's status (130 when a
signal ended it, 124 when a WAIT never came within 60 s).
"""
import os
import pty
import select
import sys
import time


def main(argv):
    split = argv.index("--")
    steps, command = argv[:split], argv[split + 1:]
    pairs = [(steps[i], steps[i + 1].encode().decode("unicode_escape").encode("latin-1"))
             for i in range(0, len(steps), 2)]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    out = b""
    seen = 0

    def read_some(timeout):
        nonlocal out
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return False
        if not chunk:
            return False
        out += chunk
        return True

    for wait, send in pairs:
        want = wait.encode()
        deadline = time.monotonic() + 60
        while out.find(want, seen) < 0:
            if time.monotonic() > deadline or not read_some(0.5):
                sys.stdout.buffer.write(out)
                os.kill(pid, 9)
                return 124
        seen = out.find(want, seen) + len(want)
        os.write(fd, send)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and read_some(0.5):
        pass
    _, status = os.waitpid(pid, 0)
    sys.stdout.buffer.write(out)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
