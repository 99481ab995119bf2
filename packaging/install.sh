#!/bin/sh
# Put Lattice Desktop in the user's launcher: the desktop file, the icons and the MIME type
# of Lattice scenario files (*.lat), under $XDG_DATA_HOME (default ~/.local/share).
#
#   packaging/install.sh               from a source checkout (lattice-desktop on PATH)
#   ./install.sh                       from the unpacked bundle (also links the binary
#                                      into $XDG_BIN_HOME, default ~/.local/bin)
#   install.sh --uninstall             remove what either put there
set -eu

here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
bin=${XDG_BIN_HOME:-$HOME/.local/bin}
id=lattice-desktop

if [ -d "$here/icons/hicolor" ]; then icons=$here/icons/hicolor; else icons=$here/../resources/icons/hicolor; fi
bundled=$here/$id/$id

refresh() {
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$data/applications" || true
    fi
    if command -v update-mime-database >/dev/null 2>&1; then
        update-mime-database "$data/mime" || true
    fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$data/icons/hicolor/index.theme" ]; then
        gtk-update-icon-cache -q -t -f "$data/icons/hicolor" || true
    fi
}

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$data/applications/$id.desktop" "$data/mime/packages/$id.xml"
    find "$data/icons/hicolor" -path "*/apps/$id.*" -type f -exec rm -f {} + 2>/dev/null || true
    if [ -L "$bin/$id" ]; then rm -f "$bin/$id"; fi
    refresh
    echo "Lattice Desktop removed from $data"
    exit 0
fi

if [ -x "$bundled" ]; then
    mkdir -p "$bin"
    ln -sf "$bundled" "$bin/$id"
    exec_path=$bundled
elif command -v "$id" >/dev/null 2>&1; then
    exec_path=$(command -v "$id")
else
    echo "install.sh: no $id to launch: unpack the bundle, or install the package first" >&2
    exit 1
fi
case $exec_path in
    *[!A-Za-z0-9_./-]*) echo "install.sh: cannot write a desktop file for the path '$exec_path'" \
                             "(only letters, digits and _ . / - are allowed)" >&2; exit 1 ;;
esac

mkdir -p "$data/applications" "$data/mime/packages"
sed -e "s|^Exec=$id |Exec=$exec_path |" -e "s|^TryExec=$id\$|TryExec=$exec_path|" \
    "$here/$id.desktop" > "$data/applications/$id.desktop"
cp "$here/$id-mime.xml" "$data/mime/packages/$id.xml"
(cd "$icons" && find . -path "*/apps/$id.*" -type f) | while read -r icon; do
    mkdir -p "$data/icons/hicolor/$(dirname "$icon")"
    cp "$icons/$icon" "$data/icons/hicolor/$icon"
done
refresh
echo "Lattice Desktop installed under $data (runs $exec_path)"
