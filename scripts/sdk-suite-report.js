// Reads a mocha JSON report; prints its counts and every failure not in the known list (each
// known failure is a line `TITLE<TAB>reason`). Exits 1 when there is an unknown failure.
const fs = require('fs');
const [suite, reportFile, knownFile] = process.argv.slice(2);
const text = fs.readFileSync(reportFile, 'utf8');
const report = JSON.parse(text.slice(text.indexOf('{')));
const known = new Map(fs.readFileSync(knownFile, 'utf8').split('\n')
  .filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split('\t')).map(([t, why]) => [t, why]));
const failed = report.failures.map((f) => f.fullTitle);
const unknown = failed.filter((t) => !known.has(t));
const s = report.stats;
console.log(`SDK suite ${suite}: ${s.passes} passed, ${s.failures} failed (${failed.length - unknown.length} known), ${s.pending} pending`);
for (const t of failed.filter((t) => known.has(t))) console.log(`  known: ${t} — ${known.get(t)}`);
for (const f of report.failures.filter((f) => !known.has(f.fullTitle))) {
  console.log(`  FAILED: ${f.fullTitle}\n    ${(f.err && f.err.message || '').split('\n')[0]}`);
}
process.exit(unknown.length ? 1 : 0);
