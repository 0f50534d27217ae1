#!/bin/bash
# Sets up, builds and starts mandelpipe. Arguments go to the program (see --help).
# Without a display it renders the default view headless instead of opening a window.
source "$(dirname "$0")/setup.sh"
if [[ -n ${DISPLAY:-} || -n ${WAYLAND_DISPLAY:-} || $# -gt 0 ]]; then
  exec build/mandelpipe "$@"
fi
mkdir -p out
echo "mandelpipe: no display; rendering the default view headless to out/mandelpipe.png" >&2
exec build/mandelpipe render --out out/mandelpipe.png
