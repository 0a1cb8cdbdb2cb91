#!/usr/bin/env bash
# Fuzzes with libFuzzer + AddressSanitizer for $1 seconds in all (default 300): half on the
# JSON parser, seeded with JSONTestSuite and earlier findings (Fixtures/fuzz), half on the
# write path (random trees and edits against a model of the write rules, Fuzz/WriteFuzz.swift).
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
half=$(( (seconds + 1) / 2 ))
echo "fuzzing the parser for ${half}s..."
"$out/parser-fuzz" -max_total_time="$half" -timeout=10 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/" "$out/corpus" 2>&1 | tee "$out/last-run.log" | grep -E "^#[0-9]+.*(NEW|pulse|DONE)|ERROR|stat::|SUMMARY" | tail -40
echo "fuzzing the write path for ${half}s..."
mkdir -p "$out/write-corpus"
"$out/write-fuzz" -max_total_time="$half" -timeout=10 -max_len=512 -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/write-" "$out/write-corpus" 2>&1 | tee "$out/last-write-run.log" | grep -E "^#[0-9]+.*(NEW|pulse|DONE)|ERROR|Fatal|stat::|SUMMARY" | tail -40
found=$(ls "$out/artifacts" | wc -l)
echo "fuzz: ran ${seconds}s; findings in $out/artifacts: $found"
[ "$found" -eq 0 ]
