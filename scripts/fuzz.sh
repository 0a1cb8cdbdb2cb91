#!/usr/bin/env bash
# Fuzzes the JSON parser with libFuzzer + AddressSanitizer for $1 seconds (default 300),
# seeded with JSONTestSuite and earlier findings (Fixtures/fuzz). Crashes land in
# .build-fuzz/artifacts; copy each into Fixtures/fuzz/ once fixed (a test parses them all).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
out=.build-fuzz
mkdir -p "$out/corpus" "$out/artifacts"
cp Fixtures/JSONTestSuite/test_parsing/*.json "$out/corpus/"
cp Fixtures/fuzz/* "$out/corpus/" 2>/dev/null || true
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name JSONTreeFuzz \
  Sources/JSONTree/*.swift Fuzz/ParserFuzz.swift -o "$out/parser-fuzz"
echo "fuzzing the parser for ${seconds}s..."
"$out/parser-fuzz" -max_total_time="$seconds" -timeout=10 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/" "$out/corpus" 2>&1 | tee "$out/last-run.log" | grep -E "^#[0-9]+.*(NEW|pulse|DONE)|ERROR|stat::|SUMMARY" | tail -40
found=$(ls "$out/artifacts" | wc -l)
echo "fuzz: ran ${seconds}s; findings in $out/artifacts: $found"
[ "$found" -eq 0 ]
