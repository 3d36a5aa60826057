#!/bin/sh
# Install what pfmtop needs to build on Debian or Ubuntu; with --test, also
# what its test suite needs. Safe to run again: apt skips what is there.
#
# Fedora equivalents (dnf install):
#   build: gcc cmake pkgconf-pkg-config ncurses-devel libpfm-devel inih-devel
#          elfutils-libelf-devel elfutils-devel zlib-devel jansson-devel binutils-devel
#          libmicrohttpd-devel libyaml-devel libxcrypt-devel gnutls-devel libzstd-devel xz-devel
#          capstone-devel libbpf-devel clang llvm bpftool
#   test:  libcmocka-devel tmux perf clang compiler-rt python3 util-linux procps-ng
#          man-pages glibc-locale-source stress-ng mmdebstrap sqlite strace gcc-c++
#          golang-github-prometheus-prometheus python3-prometheus_client
#          python3-jsonschema httpd-tools curl
set -eu

build_pkgs="build-essential cmake pkg-config libncurses-dev libpfm4-dev libinih-dev libelf-dev libdw-dev zlib1g-dev libjansson-dev libiberty-dev libmicrohttpd-dev libyaml-dev libcrypt-dev libgnutls28-dev libzstd-dev liblzma-dev libcapstone-dev libbpf-dev clang llvm bpftool"
test_pkgs="libcmocka-dev tmux linux-perf clang libclang-rt-dev clang-format python3 util-linux procps manpages-dev libc6-dbg locales stress-ng mmdebstrap binutils gcc g++ sqlite3 strace prometheus python3-prometheus-client python3-jsonschema apache2-utils curl"

pkgs=$build_pkgs
case "${1:-}" in
--test) pkgs="$build_pkgs $test_pkgs" ;;
"") ;;
*) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac
# Packaging tests (.deb build, lint, install and purge; man -w; the bash
# completion). Fedora: bash-completion man-db; the .deb test is Debian-only.
pkg_test_pkgs="debhelper dpkg-dev lintian man-db bash-completion"
if [ "${1:-}" = --test ]; then
	pkgs="$pkgs $pkg_test_pkgs"
fi

if [ "$(id -u)" -eq 0 ]; then
	sudo=
elif command -v sudo >/dev/null 2>&1; then
	sudo=sudo
else
	echo "install-deps: run as root or install sudo (packages: $pkgs)" >&2
	exit 1
fi

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing$missing"
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
