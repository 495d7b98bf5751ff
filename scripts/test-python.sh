#!/usr/bin/env bash
# The Python SDK's tests (clients/python): `/usr/bin/python3 -m pytest clients/python` (the shared
# contract on a scripted gateway, the SDK against a real redis-server and `guardagent up` of this
# checkout, the examples, an offline install into a venv) and `mypy --strict` on the package and
# on a caller's code of it.
#
# Debian's Python (/usr/bin/python3, 3.11) with Debian's packages: PyPI is not needed (nor reached).
# Installs python3-pytest, python3-mypy, python3-venv, python3-setuptools and python3-wheel with
# apt-get when missing, as scripts/ensure-redis.sh does for redis-server. Needs the built gateway
# (`npm ci` builds it) and runs it with the `node` first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3

if [ ! -x "$PY" ]; then
  echo "test-python: $PY is missing: install Debian's python3" >&2
  exit 2
fi
if [ ! -f packages/cli/dist/main.js ]; then
  echo "test-python: the gateway is not built: run 'npm ci' (or 'npm run build') first" >&2
  exit 2
fi

missing=()
"$PY" -c 'import pytest' 2>/dev/null || missing+=(python3-pytest)
"$PY" -c 'import mypy' 2>/dev/null || missing+=(python3-mypy)
"$PY" -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
"$PY" -c 'import setuptools' 2>/dev/null || missing+=(python3-setuptools)
"$PY" -c 'import wheel' 2>/dev/null || missing+=(python3-wheel)
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test-python: missing ${missing[*]} and no apt-get to install them" >&2
    exit 2
  fi
  SUDO=""
  [ "$(id -u)" = "0" ] || SUDO="sudo"
  echo "test-python: installing ${missing[*]} with apt-get" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
bash scripts/ensure-redis.sh

echo "test-python: $("$PY" --version), $("$PY" -m pytest --version 2>&1), $("$PY" -m mypy --version)"
# The package, and a user's code of it (tests/typing_usage.py: the types a caller sees, errors included).
MYPYPATH=clients/python "$PY" -m mypy --config-file clients/python/pyproject.toml clients/python/guardagent clients/python/tests/typing_usage.py
"$PY" -m pytest -p no:cacheprovider clients/python "$@"
