#!/usr/bin/env bash
# The Firebase JS SDK's own Realtime Database test suites (../shared/firebase-js-sdk, the ones its
# CI runs against the Firebase emulator) against `synctable serve` on a scratch file.
#   scripts/run-sdk-suites.sh [database|compat|both]
# `make test` runs it after its build; run alone, it serves .build/tests/release/synctable (that
# build's), or $SYNCTABLE.
# Every failing test must be in Tests/ServeTests/Node/sdk-known-failures.txt, with its reason;
# a clone without ../shared/firebase-js-sdk skips the suites and says so.
set -u
cd "$(dirname "$0")/.."
sdk=../shared/firebase-js-sdk
if [ ! -f "$sdk/run-suites.sh" ]; then
  echo "SDK suites: skipped (no $sdk beside this clone)"
  exit 0
fi
for tool in node mocha; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SDK suites need $tool: run scripts/ensure-deps.sh test" >&2; exit 1; }
done
which=${1:-both}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/synctable-sdk-suites.XXXXXX")
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$scratch"' EXIT
echo '{}' >"$scratch/db.json"
"${SYNCTABLE:-.build/tests/release/synctable}" serve "$scratch/db.json" --port 0 >"$scratch/serve.out" 2>"$scratch/serve.err" &
server=$!
port=
for _ in $(seq 1 300); do
  port=$(sed -n 's/^listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$scratch/serve.out")
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "SDK suites: the server did not start: $(cat "$scratch/serve.err")" >&2
  exit 1
fi
export NODE_PATH=/usr/share/nodejs RTDB_EMULATOR_PORT=$port RTDB_EMULATOR_NAMESPACE=test-emulator
rc=0
for suite in database compat; do
  [ "$which" = both ] || [ "$which" = "$suite" ] || continue
  file="$sdk/suite-$suite.cjs"
  [ "$suite" = database ] && file="$sdk/suite-database.cjs"
  [ "$suite" = compat ] && file="$sdk/suite-database-compat.cjs"
  # Retries as upstream runs them (--retries 5): the suites wait on real time.
  mocha --timeout 5000 --retries 2 --exit --reporter json "$file" >"$scratch/$suite.json" 2>"$scratch/$suite.err"
  node scripts/sdk-suite-report.js "$suite" "$scratch/$suite.json" Tests/ServeTests/Node/sdk-known-failures.txt || rc=1
done
exit $rc
