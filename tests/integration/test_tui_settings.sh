#!/bin/bash
# The view's settings file ($XDG_CONFIG_HOME/pfmtop/pfmtoprc): theme,
# delay, view and sort set with keys are written on q (a 0700 directory, a
# 0600 file) and come back at the next start; options given override them;
# --no-config neither reads nor writes it; a broken file is one warning
# naming file:line, and the defaults.
. "$(dirname "$0")/lib.sh"

tmux_setup
keys() { tm send-keys -t t "$@"; }
cfg=$TMP/config # lib.sh's XDG_CONFIG_HOME for the tmux session
rc=$cfg/pfmtop/pfmtoprc

tm new-session -d -s t -x 100 -y 30 "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"
start() { keys "clear; TERM=xterm-256color '$PFMTOP' $*; echo rc=\$?" Enter; }

# ---- set theme, delay, view and sort with keys; q writes them ----
start -d 0.5 --view tasks
wait_for 20 pane_has 'COMMAND' 'every 0.5s' || fail "the view did not start" "$TMP/pane"
keys t
wait_for 5 pane_has 'theme ' || fail "t did not change the theme" "$TMP/pane"
theme=$(sed -n 's/.* theme \([a-z-]*\) (.*/\1/p' "$TMP/pane" | head -n1)
[ -n "$theme" ] || fail "no theme name on the status line" "$TMP/pane"
keys d
wait_for 5 pane_has 'Delay in seconds' || fail "d: no prompt" "$TMP/pane"
keys 2 Enter
wait_for 5 pane_has 'every 2s' || fail "d 2: the delay is not 2 s" "$TMP/pane"
keys 4
wait_for 5 pane_has 'SHARE' || fail "4: not the Hotspots view" "$TMP/pane"
keys 3
wait_for 5 pane_has 'COMMAND' || fail "3: not the Tasks view" "$TMP/pane"
keys '>' '>'
wait_for 5 pane_has 'sort ' || fail "no sort shown" "$TMP/pane"
keys q
wait_for 10 pane_has 'rc=0' || fail "q did not quit" "$TMP/pane"
[ -f "$rc" ] || fail "q wrote no $rc" "$TMP/pane"
[ "$(stat -c %a "$cfg/pfmtop")" = 700 ] || fail "$cfg/pfmtop is not mode 0700"
[ "$(stat -c %a "$rc")" = 600 ] || fail "$rc is not mode 0600"
grep -qx "theme = $theme" "$rc" && grep -qx 'delay = 2' "$rc" && grep -qx 'view = tasks' "$rc" ||
	fail "the settings file does not hold theme $theme, delay 2, view tasks" "$rc"
ls -A "$cfg/pfmtop" >"$TMP/ls"
[ "$(wc -l <"$TMP/ls")" = 1 ] || fail "a temporary file was left beside $rc" "$TMP/ls"
saved=$(sed -n 's/^sort = //p' "$rc")
pass "q writes theme $theme, delay 2, view tasks${saved:+, sort $saved} to pfmtoprc (0700/0600)"

# ---- the next start has them ----
start
wait_for 20 pane_has 'COMMAND' 'every 2s' || fail "the next start lacks delay 2 s or the Tasks view" "$TMP/pane"
# t goes on from the remembered theme: from the default it gave $theme
keys t
wait_for 5 pane_has 'theme ' || fail "t did not change the theme" "$TMP/pane"
next=$(sed -n 's/.* theme \([a-z-]*\) (.*/\1/p' "$TMP/pane" | head -n1)
[ -n "$next" ] && [ "$next" != "$theme" ] ||
	fail "t after a start with theme $theme gave '$next': the theme was not remembered" "$TMP/pane"
keys q
wait_for 10 pane_has 'rc=0' || fail "q did not quit" "$TMP/pane"
# the sort was read back: the next q writes it again (the keys above did not
# touch it)
[ -z "$saved" ] || grep -qx "sort = $saved" "$rc" ||
	fail "the next start did not keep the sort $saved it was given" "$rc"
pass "the next start has the theme, delay, view and sort"

# ---- options given win, and are what q writes ----
printf '[view]\ndelay = 2\nview = tasks\n' >"$rc"
start -d 0.5 --view events
wait_for 20 pane_has 'every 0.5s' 'ENCODING' || fail "-d 0.5 --view events did not override the file" "$TMP/pane"
keys q
wait_for 10 pane_has 'rc=0' || fail "q did not quit" "$TMP/pane"
grep -qx 'view = events' "$rc" || fail "q did not write the view shown" "$rc"
pass "options given override the file"

# ---- --no-config: neither read nor written ----
printf '[view]\ndelay = 2\nview = tasks\n' >"$rc"
cp "$rc" "$TMP/rc.before"
keys "clear; TERM=xterm-256color '$PFMTOP' --no-config; echo rc=\$?" Enter
wait_for 20 pane_has 'every 1s' 'CPU%' || fail "--no-config: the default delay is not used" "$TMP/pane"
pane_has 'Load ' 'Tasks ' 'COMMAND' || fail "--no-config: not the default (Overview) view" "$TMP/pane"
keys d 3 Enter
wait_for 5 pane_has 'every 3s' || fail "d 3 did not set the delay" "$TMP/pane"
keys q
wait_for 10 pane_has 'rc=0' || fail "q did not quit" "$TMP/pane"
cmp -s "$rc" "$TMP/rc.before" || fail "--no-config wrote the settings file" "$rc"
pass "--no-config neither reads nor writes the file"

# ---- a broken file: file:line, the defaults, left as it is ----
printf '[view]\ndelay = 2\nbogus line here\n' >"$rc"
cp "$rc" "$TMP/rc.before"
keys "clear; TERM=xterm-256color '$PFMTOP' 2>'$TMP/stderr'; echo rc=\$?" Enter
wait_for 20 pane_has "$rc:3:" || fail "a broken file: no file:line on the status line" "$TMP/pane"
pane_has 'every 1s' || fail "a broken file: the defaults are not used" "$TMP/pane"
keys q
wait_for 10 pane_has 'rc=0' || fail "a broken file is fatal" "$TMP/pane"
grep -q "$rc:3:" "$TMP/stderr" || fail "a broken file: no warning after the view" "$TMP/stderr"
[ "$(wc -l <"$TMP/stderr")" = 1 ] || fail "the warning is not one line" "$TMP/stderr"
cmp -s "$rc" "$TMP/rc.before" || fail "a broken file was written over" "$rc"
pass "a broken file: one warning with file:line, the defaults, the file left as it is"

# ---- a settings file that is a symbolic link is not written through ----
rm -f "$rc"
ln -s "$TMP/elsewhere" "$rc"
start --view tasks
wait_for 20 pane_has 'COMMAND' || fail "the view did not start" "$TMP/pane"
keys q
wait_for 10 pane_has 'rc=0' || fail "q did not quit" "$TMP/pane"
[ ! -e "$TMP/elsewhere" ] || fail "the settings were written through a symbolic link"
pass "a settings file that is a symbolic link is not followed"
