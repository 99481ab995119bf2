#!/usr/bin/env bash
# What the suite meets from the system: the fonts of a desktop (Debian's fonts-dejavu and
# fonts-noto, Noto's monospace included), so that the layout tests meet in CI the glyph widths a
# user's machine has, not only a bare image's; and Go, whose `go tool pprof` reads back the
# profiles `profile --pprof` writes. Installed with apt-get when the run is root on a
# Debian-like system and they are missing; otherwise this says why it leaves them and the tests
# run with what is there (the pprof read-back is skipped without Go).
set -euo pipefail
packages=(fonts-dejavu fonts-noto fonts-noto-mono golang-go)
installed() {
  [ "$(dpkg-query -W -f='${Status}\n' "${packages[@]}" 2>/dev/null | grep -c 'install ok installed')" \
    -eq "${#packages[@]}" ]
}
if command -v dpkg-query > /dev/null && installed; then
  echo "test packages: ${packages[*]} are installed"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get > /dev/null; then
  echo "test packages: not installing ${packages[*]} (that needs root and apt-get); the tests run with what is there"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
install() { apt-get install -y -q --no-install-recommends "${packages[@]}" > /dev/null; }
# A fresh image may have no package lists yet: fetch them only when the install needs them.
if ! install 2> /dev/null; then
  apt-get update -q > /dev/null
  install
fi
echo "test packages: installed ${packages[*]}"
