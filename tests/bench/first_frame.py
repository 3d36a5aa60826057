#!/usr/bin/python3
"""first_frame: how long after launch a program writes its first full frame
to its terminal.

    first_frame.py COLSxROWS REGEX -- COMMAND [ARG...]

Runs COMMAND on a new pseudo-terminal of that size and reads what it writes
as it comes (a blocking read: nothing else runs meanwhile) into a small
screen model (text, cursor moves and erases; attributes ignored). When
REGEX matches a line of the screen, prints the milliseconds since the fork,
sends q, and waits for the program to end (killing it after 5 s). Exit 1 if
REGEX never matched within 10 s.

A terminal emulator (or tmux) shows the frame some milliseconds later: this
measures the program, not its terminal.
"""
import codecs
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

CSI = re.compile(r"\x1b\[([0-9;?]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


class Screen:
    """The cells of a terminal, as the text written to it leaves them."""

    def __init__(self, cols, rows):
        self.cols, self.rows = cols, rows
        self.cells = [[" "] * cols for _ in range(rows)]
        self.r = self.c = 0

    def put(self, text):
        for ch in text:
            if ch == "\r":
                self.c = 0
            elif ch == "\n":
                self.r = min(self.r + 1, self.rows - 1)
            elif ch == "\b":
                self.c = max(self.c - 1, 0)
            elif ch >= " ":
                if self.c < self.cols:
                    self.cells[self.r][self.c] = ch
                self.c += 1

    def csi(self, args, op):
        n = [int(a) if a.isdigit() else 0 for a in args.lstrip("?").split(";")] if args else []
        first = n[0] if n and n[0] else 1
        row = self.cells[self.r]
        if op in "Hf":
            self.r = min(max(first, 1), self.rows) - 1
            self.c = min(max(n[1] if len(n) > 1 and n[1] else 1, 1), self.cols) - 1
        elif op == "d":
            self.r = min(first, self.rows) - 1
        elif op == "G":
            self.c = min(first, self.cols) - 1
        elif op == "C":
            self.c = min(self.c + first, self.cols - 1)
        elif op == "D":
            self.c = max(self.c - first, 0)
        elif op == "A":
            self.r = max(self.r - first, 0)
        elif op == "B":
            self.r = min(self.r + first, self.rows - 1)
        elif op == "X":
            row[self.c:self.c + first] = [" "] * len(row[self.c:self.c + first])
        elif op == "K":
            row[self.c:] = [" "] * (self.cols - self.c)
        elif op == "J" and args == "2":
            self.cells = [[" "] * self.cols for _ in range(self.rows)]

    def feed(self, text):
        at = 0
        for m in CSI.finditer(text):
            self.put(text[at:m.start()])
            if m.group(2):
                self.csi(m.group(1), m.group(2))
            at = m.end()
        self.put(text[at:])

    def lines(self):
        return ["".join(r).rstrip() for r in self.cells]


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit(__doc__)
    cols, rows = (int(n) for n in sys.argv[1].split("x"))
    want = re.compile(sys.argv[2])
    screen = Screen(cols, rows)
    pending = ""
    t0 = time.monotonic_ns()
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.execvp(sys.argv[4], sys.argv[4:])
    found = None
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    while found is None and time.monotonic_ns() - t0 < 10e9:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        now = time.monotonic_ns()
        text = pending + decoder.decode(chunk)
        cut = text.rfind("\x1b")  # a sequence cut at the end of the chunk waits
        if cut >= 0 and not CSI.match(text, cut) and len(text) - cut < 64:
            pending, text = text[cut:], text[:cut]
        else:
            pending = ""
        screen.feed(text)
        if any(want.search(line) for line in screen.lines()):
            found = (now - t0) / 1e6
    if found is not None:
        print(f"{found:.0f}")
    try:
        os.write(fd, b"q")
        end = time.monotonic() + 5
        while time.monotonic() < end:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            select.select([fd], [], [], 0.1)
            try:
                os.read(fd, 65536)
            except OSError:
                pass
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except OSError:
        pass
    sys.exit(0 if found is not None else 1)


if __name__ == "__main__":
    main()
