#!/usr/bin/env bash
# Make sure a headless-capable Chromium is at /usr/bin/chromium (or $GUARDAGENT_CHROMIUM): the
# console's browser test (services/gateway/test/console-browser.test.ts) drives it with
# playwright-core, which downloads no browser of its own. Installs Debian's `chromium` package
# when missing; elsewhere says how.
set -euo pipefail
CHROMIUM="${GUARDAGENT_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" = "0" ] || SUDO="sudo"
  echo "ensure-chromium: installing chromium with apt-get" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "ensure-chromium: no Chromium at $CHROMIUM; install Chromium (or set GUARDAGENT_CHROMIUM to its binary)" >&2
exit 1
