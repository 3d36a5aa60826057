#!/bin/bash
# Check that the %files list of an RPM spec covers exactly a set of installed
# paths: every file is matched by an entry, every entry matches a file, every
# %dir is a directory. Reads the paths on stdin, one per line, as they are on
# the target system (/usr/bin/pfmtop), directories with a trailing slash.
#
#   find DESTDIR -mindepth 1 \( -type d -printf '/%P/\n' -o -printf '/%P\n' \) |
#       packaging/rpm/check-files.sh packaging/rpm/pfmtop.spec
#
# Entries: a path or glob (a file), "path/" (the directory and all below),
# "%dir path"; %doc, %license, %config(...), %attr(...) and the like are
# skipped. Macros: %{name}, %{version} and the standard directories of
# Fedora (_prefix, _bindir, _datadir, _mandir, _docdir, _pkgdocdir,
# _sysconfdir, _libdir, _unitdir, _sysusersdir). With --list, just print
# the expanded entries.
set -euo pipefail

list=no
if [ "${1:-}" = --list ]; then
	list=yes
	shift
fi
[ $# -eq 1 ] || {
	echo "usage: $0 [--list] SPEC < PATHS" >&2
	exit 2
}
spec=$1

# "KIND PATH" per %files entry: KIND is file, dir or tree.
entries=$(awk '
	function tag(t) { return $1 ~ "^" t ":$" }
	!insec && /^Name:/    { name = $2 }
	!insec && /^Version:/ { version = $2 }
	/^%files([ \t]|$)/ { insec = 1; infiles = 1; next }
	/^%(package|description|prep|build|install|check|clean|pre|post|preun|postun|pretrans|posttrans|triggerin|triggerun|changelog)([ \t]|$)/ {
		infiles = 0; next
	}
	!infiles || /^[ \t]*(#|$)/ { next }
	{
		line = $0
		kind = "file"
		while (match(line, /^[ \t]*%(doc|license|ghost|dir|config|attr|defattr|verify|lang|caps)(\([^)]*\))?[ \t]*/)) {
			if (substr(line, RSTART, RLENGTH) ~ /%dir/)
				kind = "dir"
			line = substr(line, RSTART + RLENGTH)
		}
		sub(/[ \t]+$/, "", line)
		if (line == "")
			next
		m["name"] = name; m["version"] = version
		m["_prefix"] = "/usr"; m["_sysconfdir"] = "/etc"
		m["_bindir"] = "%{_prefix}/bin"; m["_libdir"] = "%{_prefix}/lib64"
		m["_datadir"] = "%{_prefix}/share"; m["_mandir"] = "%{_datadir}/man"
		m["_docdir"] = "%{_datadir}/doc"; m["_pkgdocdir"] = "%{_docdir}/%{name}"
		m["_unitdir"] = "%{_prefix}/lib/systemd/system"; m["_sysusersdir"] = "%{_prefix}/lib/sysusers.d"
		for (n = 0; match(line, /%\{[A-Za-z_]+\}/); n++) {
			key = substr(line, RSTART + 2, RLENGTH - 3)
			if (!(key in m) || n > 50) {
				print "check-files: unknown macro %{" key "} in: " $0 > "/dev/stderr"
				exit 1
			}
			line = substr(line, 1, RSTART - 1) m[key] substr(line, RSTART + RLENGTH)
		}
		if (kind == "file" && line ~ /\/$/) {
			kind = "tree"
			sub(/\/+$/, "", line)
		}
		print kind, line
	}' "$spec")

if [ "$list" = yes ]; then
	printf '%s\n' "$entries"
	exit 0
fi

mapfile -t paths
declare -A used=()
status=0
for p in "${paths[@]}"; do
	[ -n "$p" ] || continue
	ok=no
	while read -r kind e; do
		# shellcheck disable=SC2053 # a file entry is a glob
		case $kind in
		tree) [[ $p == "$e"/* || $p == "$e/" ]] && ok=yes ;;
		file) [[ $p != */ && $p == $e ]] && ok=yes ;;
		dir) [[ $p == "$e/" ]] && ok=yes ;;
		esac
		[ $ok = yes ] && used[$kind $e]=1 && break
	done <<<"$entries"
	# Directories need no entry of their own (the file system and other
	# packages own /usr/share/man/man1 and the like).
	if [ $ok = no ] && [[ $p != */ ]]; then
		echo "check-files: installed but not in %files: $p"
		status=1
	fi
done
while read -r kind e; do
	[ -n "${used[$kind $e]:-}" ] && continue
	case $kind in
	dir) echo "check-files: %dir $e is not an installed directory" ;;
	*) echo "check-files: in %files but not installed: $e" ;;
	esac
	status=1
done <<<"$entries"
exit $status
