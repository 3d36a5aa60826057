#!/bin/bash
# cmake --install: with DESTDIR and a prefix it installs the binary, presets,
# themes, man pages, completion and docs; the installed binary finds its
# presets relative to its own prefix (for any prefix), and the build-tree
# binary still runs on its built-in ones. The RPM spec's %files lists exactly
# the installed files (and the exporter's three, which the packages add),
# and the version is the same everywhere: project() in CMakeLists.txt,
# pfmtop --version, the Debian changelog, the spec and the man pages.
. "$(dirname "$0")/lib.sh"

need_cmd cmake
build=$(dirname "$PFMTOP")
[ -f "$build/CMakeCache.txt" ] || skip "$PFMTOP is not in a CMake build tree"
src=$PFMTOP_SRCDIR
spec=$src/packaging/rpm/pfmtop.spec
out=$TMP/out err=$TMP/err
# No presets of the user running the tests.
export HOME=$TMP/home
unset XDG_CONFIG_HOME

version=$(sed -n 's/^project(pfmtop VERSION \([0-9][0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$version" ] || fail "no project(pfmtop VERSION x.y.z) in CMakeLists.txt"

# cmake --install rewrites the build tree's install_manifest.txt: put back
# the one of the last real install, if any.
manifest=$build/install_manifest.txt
if [ -f "$manifest" ]; then
	cp -p "$manifest" "$TMP/install_manifest.txt"
	cleanup_add "cp -p '$TMP/install_manifest.txt' '$manifest'"
else
	cleanup_add "rm -f '$manifest'"
fi

# --- install into a DESTDIR, prefix /usr ---
root=$TMP/root
run "$out" "$err" env DESTDIR="$root" cmake --install "$build" --prefix /usr
expect_rc 0 "cmake --install --prefix /usr with DESTDIR" "$out" "$err"
want=(/usr/bin/pfmtop /usr/share/man/man1/pfmtop.1 /usr/share/man/man5/pfmtop-presets.5
	/usr/share/bash-completion/completions/pfmtop /usr/share/doc/pfmtop/README.md
	/usr/share/doc/pfmtop/presets-format.md /usr/share/doc/pfmtop/LICENSE
	/usr/share/pfmtop/pfmtop-snapshot.schema.json)
for f in "$src"/src/presets/*.ini; do want+=("/usr/share/pfmtop/presets/${f##*/}"); done
for f in "$src"/themes/*.ini; do [ -e "$f" ] && want+=("/usr/share/pfmtop/themes/${f##*/}"); done
(cd "$root" && find . -mindepth 1 \( -type d -printf '/%P/\n' -o -printf '/%P\n' \)) | sort >"$TMP/installed"
for f in "${want[@]}"; do
	grep -qxF "$f" "$TMP/installed" || fail "cmake --install did not install $f" "$TMP/installed"
done
[ -x "$root/usr/bin/pfmtop" ] || fail "the installed pfmtop is not executable"
pass "cmake --install put ${#want[@]} files under DESTDIR/usr"

# --- the installed binary reads the presets of its prefix ---
presets=$root/usr/share/pfmtop/presets
cat >"$presets/zz-install-test.ini" <<'EOF'
[preset install-test]
description = only in the installed share dir
events = task-clock
EOF
run "$out" "$err" "$root/usr/bin/pfmtop" --list-presets
expect_rc 0 "installed pfmtop --list-presets" "$out" "$err"
grep -qE '^install-test +datadir ' "$out" || fail "the installed pfmtop does not list a preset of $presets" "$out"
for f in "$src"/src/presets/*.ini; do
	name=$(basename "$f" .ini)
	grep -qE "^$name(:[^ ]*)? +datadir " "$out" || fail "preset $name is not read from $presets" "$out"
done
rm "$presets/zz-install-test.ini"
run "$out" "$err" "$root/usr/bin/pfmtop" --version
expect_rc 0 "installed pfmtop --version" "$out" "$err"
[ "$(head -n1 "$out")" = "pfmtop $version" ] || fail "installed pfmtop --version is not 'pfmtop $version'" "$out"

# Any prefix: the binary looks one directory up from its own.
run "$out" "$err" env DESTDIR="$TMP/opt" cmake --install "$build" --prefix /opt/pfmtop
expect_rc 0 "cmake --install --prefix /opt/pfmtop" "$out" "$err"
cp "$src/src/presets/memory.ini" "$TMP/opt/opt/pfmtop/share/pfmtop/presets/zz-copy.ini"
sed -i 's/^\[preset memory\]/[preset opt-test]/' "$TMP/opt/opt/pfmtop/share/pfmtop/presets/zz-copy.ini"
run "$out" "$err" "$TMP/opt/opt/pfmtop/bin/pfmtop" --list-presets
expect_rc 0 "pfmtop installed in /opt/pfmtop: --list-presets" "$out" "$err"
grep -qE '^opt-test +datadir ' "$out" || fail "pfmtop installed in /opt/pfmtop does not read its presets" "$out"

# The build-tree binary still runs, on its built-in presets.
run "$out" "$err" "$PFMTOP" --list-presets
expect_rc 0 "build-tree pfmtop --list-presets" "$out" "$err"
grep -qE '^default +built-in ' "$out" || fail "build-tree pfmtop does not list the built-in default preset" "$out"
pass "the installed binary finds its presets under any prefix; the build tree still works"

# --- the spec's %files is exactly what was installed ---
# ...plus the services' files, which cmake --install leaves out and the
# packages install from packaging/systemd (the spec's %install, debian/rules).
[ -f "$spec" ] || fail "$spec is missing"
for f in pfmtop-exporter.service pfmtop-record.service pfmtop.sysusers pfmtop-exporter.default; do
	[ -f "$src/packaging/systemd/$f" ] || fail "packaging/systemd/$f is missing"
	grep -q "^install .*packaging/systemd/$f " "$spec" || fail "the %install of pfmtop.spec does not install packaging/systemd/$f" "$spec"
done
printf '%s\n' /usr/lib/systemd/system/pfmtop-exporter.service \
	/usr/lib/systemd/system/pfmtop-record.service /usr/lib/sysusers.d/pfmtop.conf \
	/etc/default/pfmtop-exporter >>"$TMP/installed"
run "$out" "$err" "$src/packaging/rpm/check-files.sh" "$spec" <"$TMP/installed"
expect_rc 0 "packaging/rpm/check-files.sh: %files of pfmtop.spec against cmake --install" "$out" "$err"
pass "pfmtop.spec %files matches the $(grep -vc '/$' "$TMP/installed") installed files"

# --- one version everywhere ---
run "$out" "$err" "$PFMTOP" --version
[ "$(head -n1 "$out")" = "pfmtop $version" ] || fail "pfmtop --version is not 'pfmtop $version' (CMakeLists.txt)" "$out" "$err"
v=$(sed -n 's/^Version:[[:space:]]*//p' "$spec")
[ "$v" = "$version" ] || fail "pfmtop.spec Version is '$v', CMakeLists.txt has $version"
v=$(sed -n '/^%changelog/{n;p;q}' "$spec" | sed -n 's/.* - \([^ -]*\)-[^ -]*$/\1/p')
[ "$v" = "$version" ] || fail "the first %changelog entry of pfmtop.spec is for '$v', not $version"
v=$(sed -n '1s/^pfmtop (\([^)]*\)).*/\1/p' "$src/packaging/debian/changelog")
[ "${v%-*}" = "$version" ] || fail "packaging/debian/changelog is at '$v', CMakeLists.txt has $version"
for page in "$src"/packaging/man/*.[1-8]; do
	grep -q "^\.TH .* \"pfmtop $version\"" "$page" ||
		fail "$(basename "$page"): its .TH line does not say \"pfmtop $version\"" "$page"
done
pass "version $version in CMakeLists.txt, --version, pfmtop.spec, debian/changelog and the man pages"
