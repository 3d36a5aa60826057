#!/bin/sh
# Build the pfmtop .deb from this source tree without touching it: copy the
# tree (the files git knows, or everything but build directories when it is
# not a git checkout) to a temporary directory, put packaging/debian at its
# root as debian/, run dpkg-buildpackage -b -us -uc there and copy the .deb
# into OUTDIR (default: out/ in the source tree).
#
#   packaging/build-deb.sh [--lintian] [OUTDIR]
#
# --lintian runs lintian on the result (exit status 1 if it reports errors or
# warnings). DEB_BUILD_OPTIONS defaults to "nocheck parallel=<CPUs>": the
# unit tests need cmocka, the rest root and a perf-capable kernel; set it to
# run the unit tests during the build. Needs dpkg-dev, debhelper and the
# Build-Depends of packaging/debian/control (packaging/install-deps.sh).
set -eu

usage() {
	echo "usage: $0 [--lintian] [OUTDIR]" >&2
	exit 2
}

lintian=no
outdir=
for arg; do
	case $arg in
	--lintian) lintian=yes ;;
	-*) usage ;;
	*) [ -z "$outdir" ] || usage; outdir=$arg ;;
	esac
done

srcdir=$(cd "$(dirname "$0")/.." && pwd)
: "${outdir:=$srcdir/out}"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

for cmd in dpkg-buildpackage dh dpkg-parsechangelog; do
	command -v "$cmd" >/dev/null 2>&1 || {
		echo "build-deb: $cmd not found: install dpkg-dev and debhelper" >&2
		exit 1
	}
done

# The version comes from project(VERSION) in CMakeLists.txt; the Debian
# changelog must carry it as its upstream part.
version=$(sed -n 's/^project(pfmtop VERSION \([0-9.]*\).*/\1/p' "$srcdir/CMakeLists.txt")
debversion=$(dpkg-parsechangelog -l "$srcdir/packaging/debian/changelog" -S Version)
if [ "${debversion%-*}" != "$version" ]; then
	echo "build-deb: packaging/debian/changelog is at $debversion but CMakeLists.txt at $version" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pfmtop-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/pfmtop-$version
mkdir "$tree"

if git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Tracked and new (not ignored) files, as they are in the working tree.
	git -C "$srcdir" ls-files -z --cached --others --exclude-standard |
		(cd "$srcdir" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh) |
		tar -C "$srcdir" -cf - -T - | tar -C "$tree" -xf -
else
	tar -C "$srcdir" --exclude='./build*' --exclude=./out --exclude=./.git -cf - . | tar -C "$tree" -xf -
fi
rm -rf "$tree/debian"
cp -R "$tree/packaging/debian" "$tree/debian"

: "${DEB_BUILD_OPTIONS=nocheck parallel=$(nproc 2>/dev/null || echo 1)}"
export DEB_BUILD_OPTIONS
case " $DEB_BUILD_OPTIONS " in
*" nocheck "*) DEB_BUILD_PROFILES="${DEB_BUILD_PROFILES:+$DEB_BUILD_PROFILES }nocheck"; export DEB_BUILD_PROFILES ;;
esac

echo "build-deb: building pfmtop $debversion in $tree (DEB_BUILD_OPTIONS='$DEB_BUILD_OPTIONS')"
(cd "$tree" && dpkg-buildpackage -b -us -uc) >"$tmp/build.log" 2>&1 || {
	tail -n 60 "$tmp/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed (last 60 lines above)" >&2
	exit 1
}

set -- "$tmp"/pfmtop_*.deb
[ -f "$1" ] || {
	echo "build-deb: dpkg-buildpackage made no .deb" >&2
	exit 1
}
cp "$@" "$outdir/"
for deb; do
	echo "build-deb: $outdir/$(basename "$deb")"
done

status=0
if [ "$lintian" = yes ]; then
	command -v lintian >/dev/null 2>&1 || {
		echo "build-deb: lintian not found" >&2
		exit 1
	}
	for deb; do
		lintian --fail-on error,warning --display-info "$outdir/$(basename "$deb")" || status=1
	done
fi
exit $status
