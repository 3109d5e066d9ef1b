#!/usr/bin/env bash
# Prints the path of a Chromium for the browser tests, installing Debian's `chromium` first when
# there is none (the tests need it; nothing else does). Exits non-zero when it cannot.
set -euo pipefail
for c in chromium chromium-browser; do
  if command -v "$c" >/dev/null 2>&1; then command -v "$c"; exit 0; fi
done
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium is not installed, and this script can install it only as root with apt-get (apt-get install chromium)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq chromium >&2
command -v chromium
