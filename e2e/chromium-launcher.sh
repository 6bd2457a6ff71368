#!/bin/sh
# Starts the Chromium named by SVC_CHROMIUM with every --disable-features list among its arguments
# merged into one, last. Chromium reads only the last such list, and Playwright passes one of its
# own before the arguments launchChromium adds (e2e/console-browser.ts): given as they are, the
# second list would silently turn Playwright's features back on.
features=
for arg; do
  shift
  case $arg in
    --disable-features=*) features=${features:+$features,}${arg#--disable-features=} ;;
    *) set -- "$@" "$arg" ;;
  esac
done
exec "$SVC_CHROMIUM" "$@" ${features:+"--disable-features=$features"}
