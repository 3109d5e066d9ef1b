#!/usr/bin/env bash
# Prints the directory of PostgreSQL's server binaries (initdb, postgres) for the tests and
# `npm run bench:scale`, which start their own server in a temporary directory; installs
# Debian's `postgresql` first when there is none. The cluster the Debian package makes is not
# used (nor started). Exits non-zero when it cannot.
set -euo pipefail
find_bin() {
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then echo "$d"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v postgres >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v initdb)")"; return 0
  fi
  return 1
}
if find_bin; then exit 0; fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "PostgreSQL is not installed, and this script can install it only as root with apt-get (apt-get install postgresql)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq postgresql >&2
find_bin
