#!/bin/bash
# The installed dbtool on a host without Swift: the release binary loads
# only Debian's libraries, and the Debian package installs into a fresh root
# (dpkg --root) where, in a chroot holding nothing but those libraries (and a
# /proc), dbtool
# runs init, migrate, backup, verify and restore.
#
# Usage: scripts/test-install.sh PACKAGE.deb   (make test-install runs it)
set -euo pipefail

deb=$1
root=$(mktemp -d "${TMPDIR:-/tmp}/dbtool-root.XXXXXX")
trap 'rm -rf "$root"' EXIT
fail() { echo "test-install: FAIL: $*" >&2; exit 1; }

# A fresh dpkg database, and the package in it.
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/tmp" "$root/srv"
touch "$root/var/lib/dpkg/status"
chmod 1777 "$root/tmp"
# The libraries are copied in below, not installed as packages: --force-depends.
output=$(dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb" 2>&1) \
    || fail "dpkg could not install $deb into $root: $output"
dpkg --root="$root" -L dbtool | grep -qx /usr/share/man/man1/dbtool.1.gz || fail "the man page is not installed"
dpkg --root="$root" -L dbtool | grep -qx /usr/share/bash-completion/completions/dbtool || fail "the bash completion is not installed"
for unit in dbtool-replicate@.service dbtool-backup@.service dbtool-backup@.timer dbtool-check@.service dbtool-check@.timer \
    dbtool-optimize@.service dbtool-optimize@.timer; do
    dpkg --root="$root" -L dbtool | grep -qx "/lib/systemd/system/$unit" || fail "the unit $unit is not installed"
done
dpkg --root="$root" -L dbtool | grep -qx /usr/lib/sysusers.d/dbtool.conf || fail "the units' user (sysusers.d) is not installed"
dpkg --root="$root" -L dbtool | grep -qx /usr/share/dbtool/prometheus/dbtool-alerts.yml || fail "the alert rules are not installed"

binary="$root/usr/bin/dbtool"
libraries=$(ldd "$binary")
echo "$libraries" | grep -qi swift && fail "the binary loads a Swift library: $libraries"
echo "$libraries" | grep -q "not found" && fail "a library is missing: $libraries"
readelf -d "$binary" | grep -Eqi 'R(UN)?PATH.*(swift|usr/lib/swift)' && fail "the binary's RUNPATH points into a toolchain"
readelf -S "$binary" | grep -q "\.symtab" && fail "the binary is not stripped"

# The chroot: the loader and the libraries ldd names, nothing else.
for library in $(echo "$libraries" | grep -o '/[^ ]*'); do
    mkdir -p "$root$(dirname "$library")"
    cp -L "$library" "$root$library"
done
cp -r migrations-examples "$root/srv/migrations"
mkdir -p "$root/proc"
# The Swift runtime reads the arguments from /proc/self/cmdline, so the chroot
# gets a /proc, mounted in a mount namespace of its own (nothing to unmount,
# even when the test is killed).
run() {
    unshare --mount --propagation private -- \
        sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" /usr/bin/dbtool "$@"' "$root" "$@"
}

run --version | grep -q '^dbtool ' || fail "dbtool --version"
run init /srv/db --migrations /srv/migrations --quiet || fail "init"
run migrate status --database /srv/db --migrations /srv/migrations --exit-code -q || fail "migrate status: not up to date"
run backup --database /srv/db --output-dir /srv/backups -q || fail "backup"
archive=$(cd "$root/srv/backups" && ls db-*.tar.zst)
run backup verify "/srv/backups/$archive" -q || fail "backup verify"
run restore "/srv/backups/$archive" /srv/restored -q || fail "restore"
[ "$(run exec --database /srv/restored "SELECT COUNT(*) FROM book" --format csv)" = "$(run exec --database /srv/db "SELECT COUNT(*) FROM book" --format csv)" ] \
    || fail "the restored database differs"
echo "test-install: ok: $(basename "$deb") installs in a fresh root and runs there ($(du -h "$binary" | cut -f1) binary; $(echo "$libraries" | grep -c '=>') libraries, all Debian's)"
