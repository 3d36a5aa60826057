#!/usr/bin/env python3
"""Attacks on pfmtop's exporter, for test_exporter_attack.sh (run as nobody).

http_attack.py wrong PORT SECS N      N clients logging in as alice with a
                                      new wrong password each time
http_attack.py slow PORT SECS N IPS   N half-open requests trickling a header
                                      byte every 2-4 s, IPS of them from
                                      127.0.0.1, the others each from its own
                                      127.0.x.y; one reconnects when closed
http_attack.py flood PORT SECS N      N clients sending requests without a
                                      login as fast as they are answered
Each prints one JSON line of figures at the end.
"""
import base64
import json
import os
import random
import select
import socket
import sys
import time
from multiprocessing import Pool


def request(auth=None):
    head = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if auth:
        head += "Authorization: Basic " + base64.b64encode(auth.encode()).decode() + "\r\n"
    return (head + "\r\n").encode()


def read_response(s, buf):
    """One response off s (buf: bytes read before): (code, keep, rest) or None."""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            return None
        buf += d
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    code = int(lines[0].split()[1])
    length, keep = 0, True
    for line in lines[1:]:
        k, _, v = line.partition(":")
        if k.strip().lower() == "content-length":
            length = int(v)
        if k.strip().lower() == "connection" and "close" in v.lower():
            keep = False
    while len(rest) < length:
        d = s.recv(65536)
        if not d:
            return None
        rest += d
    return code, keep, rest[length:]


def client(args):
    """Requests until SECS are over, reusing the connection while it lasts."""
    mode, port, secs, seed = args
    random.seed(seed)
    end = time.monotonic() + secs
    codes, conns, errors = {}, 0, 0
    s, buf = None, b""
    while time.monotonic() < end:
        try:
            if s is None:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                conns += 1
                buf = b""
            auth = None
            if mode == "wrong":
                auth = "alice:wrong%016x" % random.getrandbits(64)
            s.sendall(request(auth))
            r = read_response(s, buf)
            if r is None:
                raise OSError("closed")
            code, keep, buf = r
            codes[code] = codes.get(code, 0) + 1
            if code == 429 and mode == "wrong":
                time.sleep(0.05)  # as a client told to wait would, a little
            if not keep:
                s.close()
                s = None
        except OSError:
            errors += 1
            if s is not None:
                s.close()
            s = None
            time.sleep(0.01)
    return codes, conns, errors


def many(mode, port, secs, n):
    with Pool(n) as p:
        res = p.map(client, [(mode, port, secs, os.getpid() * 100 + i) for i in range(n)])
    codes = {}
    for c, _, _ in res:
        for k, v in c.items():
            codes[str(k)] = codes.get(str(k), 0) + v
    print(json.dumps({"codes": codes, "requests": sum(codes.values()),
                      "connections": sum(r[1] for r in res),
                      "errors": sum(r[2] for r in res)}))


def slow(port, secs, n, same):
    text = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200
    addrs = ["127.0.0.1"] * same + ["127.0.%d.%d" % (1 + i // 250, 1 + i % 250)
                                    for i in range(n - same)]
    conns = {}  # socket -> [addr, opened, next send, bytes sent]
    lifetimes, refused = [], 0

    def open_one(addr):
        s = socket.socket()
        s.bind((addr, 0))
        s.connect(("127.0.0.1", port))
        now = time.monotonic()
        conns[s] = [addr, now, now + random.uniform(2, 4), 0]

    for a in addrs:
        open_one(a)
    end = time.monotonic() + secs
    while time.monotonic() < end:
        r, _, _ = select.select(list(conns), [], [], 0.05)
        now = time.monotonic()
        gone = []
        for s in r:
            try:
                d = s.recv(4096)
            except OSError:
                d = b""
            if not d:
                gone.append(s)
        for s, c in conns.items():
            if s in gone or c[2] > now:
                continue
            try:
                s.send(text[c[3] % len(text):][:1])
                c[3] += 1
                c[2] = now + random.uniform(2, 4)
            except OSError:
                gone.append(s)
        for s in gone:
            addr, opened, _, sent = conns.pop(s)
            s.close()
            lifetimes.append(now - opened)
            refused += sent == 0 and now - opened < 0.5
            open_one(addr)
    now = time.monotonic()
    print(json.dumps({"closed": len(lifetimes),
                      "longest_closed": max(lifetimes, default=0),
                      "shortest_closed": min(lifetimes, default=0),
                      "oldest_open": max((now - c[1] for c in conns.values()), default=0),
                      "refused_at_once": refused,
                      "most_bytes": max((c[3] for c in conns.values()), default=0)}))


if __name__ == "__main__":
    mode, port, secs, n = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    if mode == "slow":
        slow(port, secs, n, int(sys.argv[5]))
    else:
        many(mode, port, secs, n)
