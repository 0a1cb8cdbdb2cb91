#!/usr/bin/env bash
# Fuzzes for $1 seconds in all (default 300): with libFuzzer + AddressSanitizer, a third on the
# JSON parser, seeded with JSONTestSuite and earlier findings (Fixtures/fuzz), a third on the
# write path (random trees and edits against a model of the write rules, Fuzz/WriteFuzz.swift);
# and a third on what clients send the server (Tests/ServeTests/WireFuzzTests.swift: WebSocket
# frames and REST requests mutated from the SDKs', in this process, rules on and off; not
# coverage-guided, as libFuzzer cannot link the server's packages).
# Crashes land in .build-fuzz/artifacts; copy each parser finding into Fixtures/fuzz/ once
# fixed (a test parses them all).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
out=.build-fuzz
mkdir -p "$out/corpus" "$out/artifacts"
cp Fixtures/JSONTestSuite/test_parsing/*.json "$out/corpus/"
cp Fixtures/fuzz/* "$out/corpus/" 2>/dev/null || true
# The parser's C kernels, instrumented too, and a module map so the Swift sources import them.
mkdir -p "$out/CJSONScan"
clang -O1 -g -fsanitize=fuzzer-no-link,address -I Sources/CJSONScan/include \
  -c Sources/CJSONScan/Survey.c -o "$out/CJSONScan/Survey.o"
printf 'module CJSONScan {\n  header "%s"\n  export *\n}\n' "$PWD/Sources/CJSONScan/include/CJSONScan.h" \
  > "$out/CJSONScan/module.modulemap"
swiftc -O -sanitize=fuzzer,address -parse-as-library -package-name SyncTable -module-name JSONTreeFuzz -I "$out/CJSONScan" \
  Sources/JSONTree/*.swift Fuzz/ParserFuzz.swift "$out/CJSONScan/Survey.o" -o "$out/parser-fuzz"
swiftc -O -sanitize=fuzzer,address -parse-as-library -package-name SyncTable -module-name JSONTreeWriteFuzz -I "$out/CJSONScan" \
  Sources/JSONTree/*.swift Fuzz/WriteFuzz.swift "$out/CJSONScan/Survey.o" -o "$out/write-fuzz"
half=$(( (seconds + 2) / 3 ))
echo "fuzzing the parser for ${half}s..."
"$out/parser-fuzz" -max_total_time="$half" -timeout=10 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/" "$out/corpus" 2>&1 | tee "$out/last-run.log" | grep -E "^#[0-9]+.*(NEW|pulse|DONE)|ERROR|stat::|SUMMARY" | tail -40
echo "fuzzing the write path for ${half}s..."
mkdir -p "$out/write-corpus"
"$out/write-fuzz" -max_total_time="$half" -timeout=10 -max_len=512 -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/write-" "$out/write-corpus" 2>&1 | tee "$out/last-write-run.log" | grep -E "^#[0-9]+.*(NEW|pulse|DONE)|ERROR|Fatal|stat::|SUMMARY" | tail -40
echo "fuzzing what clients send the server for ${half}s..."
swift build --build-tests >/dev/null
# Four targets (WebSocket and REST, rules on and off), a quarter of the time each.
WIRE_FUZZ_SEED=${WIRE_FUZZ_SEED:-$(date +%s)} WIRE_FUZZ_SECONDS=$(( (half + 3) / 4 )) swift test --skip-build --filter WireFuzzTests 2>&1 | tail -3 | tee "$out/last-wire-run.log"
grep -q "passed" "$out/last-wire-run.log" || echo "wire fuzz: a target failed (see above)" >> "$out/artifacts/wire-failed"
found=$(ls "$out/artifacts" | wc -l)
echo "fuzz: ran ${seconds}s; findings in $out/artifacts: $found"
[ "$found" -eq 0 ]
