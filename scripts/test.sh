#!/bin/bash
# Sets up, builds and runs every test. Without a display it starts Xvfb for the window test.
# GPU tests skip (with the reason) where there is no CUDA GPU; see README for the GPU machine.
source "$(dirname "$0")/setup.sh"
if [[ -z ${DISPLAY:-} ]]; then
  for n in $(seq 90 120); do [[ -e /tmp/.X11-unix/X$n || -e /tmp/.X$n-lock ]] || break; done
  Xvfb ":$n" -screen 0 1280x1024x24 >/tmp/mandelpipe-xvfb.log 2>&1 &
  xvfb=$!
  trap 'kill $xvfb 2>/dev/null' EXIT
  for _ in $(seq 50); do [[ -e /tmp/.X11-unix/X$n ]] && break; sleep 0.1; done
  if [[ ! -e /tmp/.X11-unix/X$n ]]; then
    echo "mandelpipe: Xvfb did not start for the window test:" >&2
    cat /tmp/mandelpipe-xvfb.log >&2
    exit 1
  fi
  export DISPLAY=":$n"
fi
export MP_REQUIRE_DISPLAY=1 MP_REQUIRE_EGL=1
ctest --test-dir build --output-on-failure
