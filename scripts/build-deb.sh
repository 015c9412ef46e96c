#!/usr/bin/env bash
# Builds the Debian package the way a distribution would: `meson dist`
# makes the source tarball (the grammars' C sources in it, so no npm is
# needed past this point), the package is built from that tarball with
# `dpkg-buildpackage -b -us -uc` (debhelper, meson; the suite's plain pass
# runs in dh_auto_test) and lintian checks the result.
#   scripts/build-deb.sh            # .deb, .buildinfo, .changes in build-deb/
# Needs what `scripts/install-deps.sh deb` installs; run it first.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
out=$src/build-deb
version=$(sed -n "s/^ *version: '\([^']*\)'.*/\1/p" meson.build | head -1)

rm -rf "$out"
mkdir -p "$out"
# The tarball: from the commit checked out (meson dist archives HEAD).
meson setup "$out/dist-build" >/dev/null
meson dist -C "$out/dist-build" --no-tests --formats xztar
tarball=$out/dist-build/meson-dist/catalyst-audit-$version.tar.xz

cp "$tarball" "$out/catalyst-audit_$version.orig.tar.xz"
tar -C "$out" -xf "$tarball"
cd "$out/catalyst-audit-$version"
dpkg-buildpackage -b -us -uc
cd "$out"
ls -l ./*.deb
lintian --info --display-info ./*.changes || true
