#!/bin/bash
# The view's terminal goes away without a SIGHUP (a terminal that is not
# pfmtop's controlling one, its other end closed): pfmtop ends as on a
# hangup (status 129) at once, instead of spinning on the dead terminal.
. "$(dirname "$0")/lib.sh"

need_root # system-wide target (the default)

# hangup.py PFMTOP ARGS...: "STATUS SECONDS" (or "running 10")
cat >"$TMP/hangup.py" <<'PY'
import os, select, subprocess, sys, time
m, s = os.openpty()
env = dict(os.environ, TERM="xterm-256color")
p = subprocess.Popen(sys.argv[1:], stdin=s, stdout=s, stderr=subprocess.DEVNULL,
                     start_new_session=True, env=env)
os.close(s)
t = time.time()
while time.time() - t < 1.5:  # the view draws; then its terminal goes
    # a screen that does not change is not written again: never block
    if not select.select([m], [], [], 0.1)[0]:
        continue
    try:
        os.read(m, 65536)
    except OSError:
        break
os.close(m)
t0 = time.time()
try:
    p.wait(timeout=10)
    print(p.returncode, round(time.time() - t0, 2))
except subprocess.TimeoutExpired:
    p.kill()
    print("running", 10)
PY
for what in view; do
	set -- "$PFMTOP" -d 0.3 -e task-clock --no-hotspots
	python3 "$TMP/hangup.py" "$@" >"$TMP/res"
	read -r rc secs <"$TMP/res"
	[ "$rc" = 129 ] || fail "the $what, its terminal gone: status '$rc' after $secs s, expected 129 at once"
	pass "the $what, its terminal gone without SIGHUP: status 129 after $secs s"
done
