#!/usr/bin/env bash
# Installs the system packages SyncTable needs, or says exactly what to run.
#   scripts/ensure-deps.sh          what `make build/test/demo` need (ncursesw, RE2, libjq and xxHash headers; tmux for the terminal tests)
#   scripts/ensure-deps.sh bench    also the benchmark peers (jq; wrk for the server; simdjson when Debian has it)
set -u
required=()
[ -e /usr/include/ncursesw/curses.h ] || required+=(libncurses-dev)
# RE2, the linear-time engine of rules' and filters' regular expressions.
[ -e /usr/include/re2/re2.h ] || required+=(libre2-dev)
# libjq (jq 1.6): the jq language beyond the native subset of expressions.
[ -e /usr/include/jq.h ] || required+=(libjq-dev)
# xxHash: the fingerprints by which a followed large file's pages are compared.
[ -e /usr/include/xxhash.h ] || required+=(libxxhash-dev)
command -v tmux >/dev/null 2>&1 || required+=(tmux)
optional=()
if [ "${1:-}" = test ]; then
  python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || required+=(python3 python3-venv)
  # The expression tests check their answers against Debian's jq (1.6, the libjq linked).
  command -v jq >/dev/null 2>&1 || required+=(jq)
  # The Firebase JS SDK's suites and our app scenarios run on Debian's node and mocha, when the
  # SDK bundle is beside the clone (../shared/firebase-js-sdk).
  if [ -d "$(dirname "$0")/../../shared/firebase-js-sdk" ]; then
    command -v node >/dev/null 2>&1 || required+=(nodejs)
    command -v mocha >/dev/null 2>&1 || required+=(mocha)
    [ -d /usr/share/nodejs/chai ] || required+=(chai)
    for module in chai-as-promised sinon sinon-chai lodash faye-websocket; do
      [ -d "/usr/share/nodejs/$module" ] || required+=("node-$module")
    done
  fi
fi
if [ "${1:-}" = bench ]; then
  command -v jq >/dev/null 2>&1 || required+=(jq)
  command -v wrk >/dev/null 2>&1 || required+=(wrk)
  [ -e /usr/include/simdjson.h ] || optional+=(libsimdjson-dev)
  # The WebSocket rows' clients: Node, with the WebSocket package the SDK's Node entry uses.
  if [ -d "$(dirname "$0")/../../shared/firebase-js-sdk" ]; then
    command -v node >/dev/null 2>&1 || optional+=(nodejs)
    [ -d /usr/share/nodejs/faye-websocket ] || optional+=(node-faye-websocket)
  fi
fi
[ ${#required[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  if [ ${#required[@]} -gt 0 ]; then
    echo "SyncTable needs: ${required[*]}. Install them with:" >&2
    echo "  sudo apt-get install -y ${required[*]}" >&2
    exit 1
  fi
  echo "note: ${optional[*]} not installed (sudo apt-get install -y ${optional[*]}); its rows say 'not installed'." >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
echo "installing: ${required[*]} ${optional[*]}" >&2
apt-get update -qq >/dev/null || true
if [ ${#required[@]} -gt 0 ]; then
  apt-get install -y -qq "${required[@]}" >/dev/null || { echo "apt-get install ${required[*]} failed" >&2; exit 1; }
fi
if [ ${#optional[@]} -gt 0 ]; then
  apt-get install -y -qq "${optional[@]}" >/dev/null 2>&1 || echo "note: ${optional[*]} could not be installed; its rows say 'not installed'." >&2
fi
exit 0
