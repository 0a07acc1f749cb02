#!/usr/bin/env bash
# Installs the Debian packages the tests need (listed one per line in the files given), when
# they are missing and we may (root with apt-get). Otherwise says which are missing and goes on:
# the tests that need them skip with that reason.
set -uo pipefail
wanted=$(cat "$@" 2>/dev/null | sed 's/#.*//' | tr -s ' \n' '\n' | sort -u | grep -v '^$' || true)
[ -n "$wanted" ] || exit 0
missing=()
for pkg in $wanted; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian packages: ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || echo "warning: could not install ${missing[*]}; tests that need them will skip" >&2
else
  echo "warning: missing Debian packages ${missing[*]} (not root): tests that need them will skip" >&2
fi
