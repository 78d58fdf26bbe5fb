#!/bin/bash
# Builds a Debian package of dbtool with dpkg-deb alone: the release binary,
# the completions in Debian's directories, the man page, and Depends on the
# Debian packages that hold the libraries the binary loads (found with
# dpkg -S, so the list follows the binary).
#
# Usage: scripts/make-deb.sh BINARY OUTPUT_DIR   (make deb runs it)
set -euo pipefail

binary=$1
output=$2
version=$("$binary" --version | awk '{ print $2 }')
architecture=$(dpkg --print-architecture)
root=$(mktemp -d "${TMPDIR:-/tmp}/dbtool-deb.XXXXXX")
trap 'rm -rf "$root"' EXIT
package="$root/dbtool_${version}_${architecture}"

install -D -m 0755 "$binary" "$package/usr/bin/dbtool"
install -D -m 0644 completions/dbtool.bash "$package/usr/share/bash-completion/completions/dbtool"
install -D -m 0644 completions/dbtool.zsh "$package/usr/share/zsh/vendor-completions/_dbtool"
install -D -m 0644 completions/dbtool.fish "$package/usr/share/fish/vendor_completions.d/dbtool.fish"
install -D -m 0644 man/dbtool.1 "$package/usr/share/man/man1/dbtool.1"
for unit in scripts/systemd/*@.service scripts/systemd/*@.timer; do
    install -D -m 0644 "$unit" "$package/lib/systemd/system/$(basename "$unit")"
done
install -D -m 0644 scripts/systemd/dbtool.sysusers "$package/usr/lib/sysusers.d/dbtool.conf"
install -D -m 0644 scripts/systemd/dbtool.tmpfiles "$package/usr/lib/tmpfiles.d/dbtool.conf"
install -D -m 0644 scripts/prometheus/dbtool-alerts.yml "$package/usr/share/dbtool/prometheus/dbtool-alerts.yml"
gzip -9n "$package/usr/share/man/man1/dbtool.1"
install -D -m 0644 LICENSE "$package/usr/share/doc/dbtool/copyright"

# The packages that hold the binary's libraries; libc6 at least the version
# of the newest glibc symbol it uses.
depends=()
for library in $(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    path=$(ldconfig -p | awk -v lib="$library" '$1 == lib && !found { print $NF; found = 1 }')
    owner=""
    for candidate in "$(readlink -f "$path")" "$path"; do
        [ -n "$owner" ] || owner=$( (dpkg -S "$candidate" 2>/dev/null || true) | head -1 | cut -d: -f1)
    done
    if [ -z "$path" ] || [ -z "$owner" ]; then
        echo "make-deb: $binary needs $library, which no Debian package holds: build it with make release" >&2
        exit 1
    fi
    depends+=("$owner")
done
glibc=$(objdump -T "$binary" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
depends_line=$(printf '%s\n' "${depends[@]}" | sort -u | sed "s/^libc6$/libc6 (>= $glibc)/" | paste -sd, - | sed 's/,/, /g')
size=$(du -sk "$package/usr" | cut -f1)

mkdir -p "$package/DEBIAN"
# The units' user and the default backup directory, made on a host that runs systemd.
cat > "$package/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ] && [ -d /run/systemd/system ]; then
    systemd-sysusers dbtool.conf || true
    systemd-tmpfiles --create dbtool.conf || true
fi
POSTINST
chmod 0755 "$package/DEBIAN/postinst"
cat > "$package/DEBIAN/control" <<CONTROL
Package: dbtool
Version: $version
Architecture: $architecture
Maintainer: DatabaseKit maintainers <maintainers@databasekit.invalid>
Installed-Size: $size
Depends: $depends_line
Recommends: bash-completion
Section: database
Priority: optional
Homepage: https://github.com/databasekit/databasekit
Description: maintain SQLite databases: migrate, backup, restore
 dbtool initializes, migrates, checkpoints, snapshots, backs up, verifies
 and restores SQLite database directories, safely while an application
 writes to them. Shell completions for bash, zsh and fish, and a man page.
CONTROL

mkdir -p "$output"
dpkg-deb --root-owner-group --build "$package" "$output/dbtool_${version}_${architecture}.deb" > /dev/null
echo "==> $output/dbtool_${version}_${architecture}.deb (Depends: $depends_line)"
