#!/usr/bin/env bash
# Prints the GOPATH holding golang.org/x/mod (sumdb/tlog, sumdb/note) for the tiles interop
# test (test/interop/tiles.test.ts), installing Debian's golang-go and golang-golang-x-mod-dev
# first when they are missing. Exits non-zero when it cannot: the test then fails, never skips.
set -euo pipefail
GOPATH_DEBIAN=/usr/share/gocode
have() { command -v go >/dev/null 2>&1 && [ -d "$GOPATH_DEBIAN/src/golang.org/x/mod/sumdb/tlog" ]; }
if have; then echo "$GOPATH_DEBIAN"; exit 0; fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "go and golang.org/x/mod are not installed, and this script can install them only as root with apt-get" \
    "(apt-get install golang-go golang-golang-x-mod-dev)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq golang-go golang-golang-x-mod-dev >&2
have || { echo "golang-golang-x-mod-dev did not provide $GOPATH_DEBIAN/src/golang.org/x/mod" >&2; exit 1; }
echo "$GOPATH_DEBIAN"
