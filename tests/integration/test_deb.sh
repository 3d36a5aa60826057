#!/bin/bash
# The Debian package, end to end on this machine: packaging/build-deb.sh
# builds it, lintian has nothing to say, dpkg -i installs it, the installed
# pfmtop runs from its own files (version, presets from /usr/share/pfmtop, a
# batch snapshot), man finds its pages, the completion is where
# bash-completion looks, the exporter's unit is installed disabled and not
# started (with its system user and its conffile /etc/default/pfmtop-exporter),
# the package holds the files the RPM spec lists; then dpkg --purge leaves
# nothing of it behind. The package is purged on every way out of this
# script, and the user pfmtop removed if this test made it.
. "$(dirname "$0")/lib.sh"

need_root
need_cmd dpkg dpkg-buildpackage dpkg-checkbuilddeps dh man
src=$PFMTOP_SRCDIR
out=$TMP/out err=$TMP/err

# Never touch a pfmtop this test did not install.
if dpkg-query -W -f='${Status}' pfmtop 2>/dev/null | grep -qv 'not-installed'; then
	skip_host "a pfmtop package is already on this machine (dpkg --purge pfmtop to run this test)"
fi
[ ! -e /usr/bin/pfmtop ] || skip_host "/usr/bin/pfmtop exists (installed by hand?): not overwriting it"
run "$out" "$err" dpkg-checkbuilddeps -P nocheck "$src/packaging/debian/control"
[ "$RC" -eq 0 ] || skip "build dependencies missing: $(cat "$err")"

version=$(sed -n 's/^project(pfmtop VERSION \([0-9][0-9.]*\).*/\1/p' "$src/CMakeLists.txt")

# --- build ---
start=$SECONDS
run "$out" "$err" "$src/packaging/build-deb.sh" "$TMP/deb"
expect_rc 0 "packaging/build-deb.sh" "$out" "$err"
debs=("$TMP"/deb/pfmtop_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "build-deb.sh left no single pfmtop .deb in $TMP/deb" "$out"
deb=${debs[0]}
pass "built $(basename "$deb") in $((SECONDS - start)) s"
# Tags the package keeps are overridden, each with its reason, in
# packaging/debian/pfmtop.lintian-overrides; nothing else is said, not even
# an informational tag.
if command -v lintian >/dev/null 2>&1; then
	run "$out" "$err" lintian --fail-on error,warning,info --display-info "$deb"
	expect_rc 0 "lintian $(basename "$deb")" "$out" "$err"
	[ ! -s "$out" ] || fail "lintian $(basename "$deb") has something to say" "$out"
	pass "lintian: no errors, warnings or informational tags"
else
	info "lintian is not installed: not linting the package"
fi

# --- install (and purge whatever happens from here on) ---
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
cleanup_add "dpkg --purge pfmtop"
# The postinst makes the system user pfmtop (systemd-sysusers), which a
# purge leaves, as Debian does with system users: remove it if it is ours.
made_user=no
if ! getent passwd pfmtop >/dev/null; then
	made_user=yes
	cleanup_add "userdel pfmtop; groupdel pfmtop"
fi
run "$out" "$err" env DEBIAN_FRONTEND=noninteractive dpkg -i "$deb"
expect_rc 0 "dpkg -i $(basename "$deb")" "$out" "$err"
dpkg-query -W -f='${Status}' pfmtop | grep -q 'install ok installed' || fail "pfmtop is not installed after dpkg -i"
dpkg -L pfmtop | grep -vx '/\.' | sort >"$TMP/listed"

# Run from an empty directory with an empty HOME: nothing from the source tree.
mkdir -p "$TMP/home" "$TMP/cwd"
cd "$TMP/cwd" || fail "cannot cd to $TMP/cwd"
export HOME=$TMP/home
unset XDG_CONFIG_HOME
run "$out" "$err" /usr/bin/pfmtop --version
expect_rc 0 "/usr/bin/pfmtop --version" "$out" "$err"
[ "$(head -n1 "$out")" = "pfmtop $version" ] || fail "/usr/bin/pfmtop --version is not 'pfmtop $version'" "$out"
run "$out" "$err" /usr/bin/pfmtop --list-presets
expect_rc 0 "/usr/bin/pfmtop --list-presets" "$out" "$err"
grep -qE '^default +datadir ' "$out" || fail "the installed pfmtop does not read /usr/share/pfmtop/presets" "$out"
run "$out" "$err" timeout 30 /usr/bin/pfmtop -b -n 1 -d 0.2
expect_rc 0 "/usr/bin/pfmtop -b -n 1 -d 0.2" "$out" "$err"
grep -q "^pfmtop $version " "$out" || fail "/usr/bin/pfmtop -b -n 1 printed no snapshot header" "$out" "$err"
pass "the installed pfmtop runs: --version, --list-presets, -b -n 1"

# --- man page and completion ---
if grep -rqsE '^path-exclude[= ]+/usr/share/man' /etc/dpkg/dpkg.cfg.d; then
	info "dpkg is configured to drop man pages here (/etc/dpkg/dpkg.cfg.d): not checking man -w"
else
	for page in "1 pfmtop" "5 pfmtop-presets"; do
		# shellcheck disable=SC2086 # section and name
		run "$out" "$err" man -w $page
		expect_rc 0 "man -w $page" "$out" "$err"
		grep -q "^/usr/share/man/man${page%% *}/${page#* }\.${page%% *}" "$out" ||
			fail "man -w $page does not find the packaged page" "$out"
	done
fi
comp=/usr/share/bash-completion/completions/pfmtop
[ -f "$comp" ] || fail "$comp is not installed" "$TMP/listed"
if [ -r /usr/share/bash-completion/bash_completion ]; then
	# bash-completion loads it on demand, by the command's name.
	run "$out" "$err" bash -c '. /usr/share/bash-completion/bash_completion
		__load_completion pfmtop && complete -p pfmtop'
	expect_rc 0 "bash-completion loading the pfmtop completion" "$out" "$err"
	grep -q -- '-F _pfmtop pfmtop' "$out" || fail "bash-completion did not load _pfmtop" "$out" "$err"
fi
pass "man -w finds both pages; the completion is installed"

# --- the exporter's unit: installed, disabled, not started ---
# Where this release's debhelper puts units (/lib/systemd/system on Debian 12).
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null) || unitdir=
unit=$(grep -E '^(/usr)?/lib/systemd/system/pfmtop-exporter\.service$' "$TMP/listed") ||
	fail "the package has no pfmtop-exporter.service under /lib/systemd/system or /usr/lib/systemd/system" "$TMP/listed"
[ -z "$unitdir" ] || [ "$unit" = "$unitdir/pfmtop-exporter.service" ] ||
	fail "the unit is at $unit, but systemd's units are in $unitdir"
cmp -s "$unit" "$src/packaging/systemd/pfmtop-exporter.service" ||
	fail "$unit is not packaging/systemd/pfmtop-exporter.service"
cmp -s "$(dirname "$unit")/pfmtop-record.service" "$src/packaging/systemd/pfmtop-record.service" ||
	fail "the package's pfmtop-record.service is missing or not packaging/systemd/pfmtop-record.service" "$TMP/listed"
sysusers=/usr/lib/sysusers.d/pfmtop.conf
grep -qxF "$sysusers" "$TMP/listed" || fail "the package has no $sysusers" "$TMP/listed"
cmp -s "$sysusers" "$src/packaging/systemd/pfmtop.sysusers" || fail "$sysusers is not packaging/systemd/pfmtop.sysusers"
# Not enabled: no link to it in any .wants or .requires directory.
links=$(find /etc/systemd/system -path '*.wants/*' -o -path '*.requires/*' 2>/dev/null | grep '/pfmtop-exporter\.service$' || true)
[ -z "$links" ] || fail "pfmtop-exporter.service is enabled after dpkg -i: $links"
states="disabled"
if command -v systemctl >/dev/null 2>&1; then
	state=$(systemctl is-enabled pfmtop-exporter.service 2>&1) || true
	[ "$state" = disabled ] || fail "systemctl is-enabled pfmtop-exporter.service says '$state', not 'disabled'"
	if [ -d /run/systemd/system ]; then
		state=$(systemctl is-active pfmtop-exporter.service 2>&1) || true
		[ "$state" = inactive ] || fail "pfmtop-exporter.service is '$state' after dpkg -i, not inactive"
		states="disabled and inactive"
	fi
fi
if command -v systemd-analyze >/dev/null 2>&1; then
	man=yes
	grep -rqsE '^path-exclude[= ]+/usr/share/man' /etc/dpkg/dpkg.cfg.d && man=no
	for u in "$unit" "$(dirname "$unit")/pfmtop-record.service"; do
		run "$out" "$err" systemd-analyze verify --man="$man" "$u"
		expect_rc 0 "systemd-analyze verify $u" "$out" "$err"
		if [ -s "$out" ] || [ -s "$err" ]; then
			fail "systemd-analyze verify $u has something to say" "$out" "$err"
		fi
	done
fi
# The conffile, as shipped.
conf=/etc/default/pfmtop-exporter
dpkg-query -W -f='${Conffiles}\n' pfmtop | grep -q "^ $conf " ||
	fail "$conf is not a conffile of pfmtop: $(dpkg-query -W -f='${Conffiles}' pfmtop)"
cmp -s "$conf" "$src/packaging/systemd/pfmtop-exporter.default" || fail "$conf is not packaging/systemd/pfmtop-exporter.default"
pass "$unit installed $states, $sysusers, conffile $conf"

# The system user, and what the unit grants it: CAP_PERFMON alone is enough
# to count the whole machine (the header says "mode system-wide").
if ! command -v systemd-sysusers >/dev/null 2>&1; then
	info "systemd-sysusers is not installed: the postinst made no user pfmtop"
else
	getent passwd pfmtop >"$out" || fail "no user pfmtop after dpkg -i (the postinst runs systemd-sysusers)"
	[ "$made_user" = no ] || [ "$(cut -d: -f6 "$out")" = /nonexistent ] ||
		fail "the user pfmtop the postinst made has not /nonexistent for home" "$out"
	if ! command -v setpriv >/dev/null 2>&1 ||
		! setpriv --reuid=pfmtop --regid=pfmtop --clear-groups --inh-caps=-all,+perfmon \
			--ambient-caps=-all,+perfmon --bounding-set=-all,+perfmon true >/dev/null 2>&1; then
		info "setpriv cannot give CAP_PERFMON to pfmtop here (kernel before 5.8?): not running as the unit would"
	else
		run "$out" "$err" timeout 30 setpriv --reuid=pfmtop --regid=pfmtop --clear-groups \
			--inh-caps=-all,+perfmon --ambient-caps=-all,+perfmon --bounding-set=-all,+perfmon \
			--no-new-privs /usr/bin/pfmtop -b -n 1 -d 0.2 --no-hotspots
		expect_rc 0 "/usr/bin/pfmtop -b -n 1 as pfmtop with CAP_PERFMON" "$out" "$err"
		grep -q ' mode system-wide ' "$out" ||
			fail "as the user pfmtop with CAP_PERFMON (what the unit grants) pfmtop does not count the whole machine" "$out" "$err"
		pass "the user pfmtop, with CAP_PERFMON alone, counts the whole machine"
	fi
fi

# --- the package holds what the RPM spec lists (Debian's own files aside) ---
# Debian 12's units are in /lib/systemd/system, Fedora's (%{_unitdir}) in
# /usr/lib/systemd/system: the same directory under a merged /usr.
grep -vE '^/usr/share/doc/pfmtop/(copyright|changelog\.Debian\.gz)$|^/usr/share/lintian/overrides/pfmtop$' "$TMP/listed" |
	sed 's|^/lib/|/usr/lib/|; s|^/lib$|/usr/lib|' |
	while read -r p; do
		if [ -d "$p" ]; then echo "$p/"; else echo "${p%.gz}"; fi
	done >"$TMP/paths"
run "$out" "$err" "$src/packaging/rpm/check-files.sh" "$src/packaging/rpm/pfmtop.spec" <"$TMP/paths"
expect_rc 0 "the .deb's files against the %files of pfmtop.spec" "$out" "$err"
pass "the .deb installs the files pfmtop.spec lists"

# --- purge: nothing left behind ---
run "$out" "$err" dpkg --purge pfmtop
expect_rc 0 "dpkg --purge pfmtop" "$out" "$err"
if dpkg-query -W -f='${Status}' pfmtop 2>/dev/null | grep -qv 'not-installed'; then
	fail "pfmtop is still known to dpkg after --purge: $(dpkg-query -W -f='${Status}' pfmtop)"
fi
left=
while read -r p; do
	# /lib is a symlink to usr/lib under a merged /usr: a directory all the same.
	if [ -d "$p" ] && { [ ! -L "$p" ] || [ "$p" = /lib ]; }; then
		# A directory may stay if it is shared: another package owns it or
		# something else is in it (/usr/share/man/man1 and the like).
		dpkg -S "$p" >/dev/null 2>&1 && continue
		[ -n "$(ls -A "$p")" ] && continue
		left="$left $p/"
	elif [ -e "$p" ] || [ -L "$p" ]; then
		left="$left $p"
	fi
done <"$TMP/listed"
[ -z "$left" ] || fail "left behind after dpkg --purge pfmtop:$left"
for p in /usr/share/pfmtop /usr/share/doc/pfmtop /etc/pfmtop /etc/default/pfmtop-exporter; do
	[ ! -e "$p" ] || fail "$p is still there after dpkg --purge pfmtop"
done
pass "dpkg --purge removed all $(wc -l <"$TMP/listed") paths of the package; took $((SECONDS - start)) s in all"
