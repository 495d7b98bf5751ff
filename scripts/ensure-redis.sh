#!/usr/bin/env bash
# Make sure redis-server and redis-cli are on PATH (GuardAgent starts its own private server
# when REDIS_URL is unset; the cluster tests join local servers into a Redis Cluster with
# redis-cli). Installs Debian/Ubuntu's packages when missing; elsewhere says how.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
  exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" = "0" ] || SUDO="sudo"
  echo "ensure-redis: installing redis-server with apt-get" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server redis-tools >/dev/null
  # Debian's package also starts a system-wide server on 6379; GuardAgent never uses it.
  exit 0
fi
if command -v brew >/dev/null 2>&1; then
  echo "ensure-redis: installing redis with Homebrew" >&2
  brew install redis
  exit 0
fi
echo "ensure-redis: no redis-server or redis-cli on PATH; install Redis >= 6.2 (with its tools)" >&2
exit 1
