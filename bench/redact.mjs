// Redaction throughput: our one-pass redactor against the naive replaceAll per secret and per
// encoding, on 1 MiB of text, with 10, 100 and 1,000 secrets. Run with `npm run bench:redact`.
import os from 'node:os';
import { createRedactor } from '../dist/secrets/redactor.js';
import { patternsFor } from '../dist/secrets/encodings.js';

const MIB = 1024 * 1024;

// A small deterministic generator, so that runs compare.
let seed = 0x2545f491;
function random() {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
}
const pick = (s) => s[Math.floor(random() * s.length)];
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function makeSecrets(count) {
  return Array.from({ length: count }, (_, i) => {
    let value = pick(['sk_live_', 'ghp_', 'xoxb-', 'AKIA', '']);
    const len = 20 + Math.floor(random() * 24);
    while (value.length < len) value += pick(ALNUM + '-_+/=');
    return { name: `SECRET_${i}`, value };
  });
}

const WORDS =
  'the quick brown fox jumps over lazy dog request response status ok error warning info debug user id token session cache hit miss retry timeout connected closed json value key name data result http get post 200 404 500 true false null'.split(
    ' ',
  );

function logLine() {
  const parts = [`2025-01-${10 + Math.floor(random() * 20)}T12:${Math.floor(random() * 60)}:00Z`];
  const n = 6 + Math.floor(random() * 12);
  for (let i = 0; i < n; i++) parts.push(pick(WORDS));
  if (random() < 0.3) parts.push(`{"id":${Math.floor(random() * 1e6)},"ok":true}`);
  if (random() < 0.2) {
    let blob = '';
    for (let i = 0; i < 24; i++) blob += pick(ALNUM);
    parts.push(`sha=${blob}`);
  }
  return parts.join(' ');
}

function encodings(value) {
  const bytes = Buffer.from(value);
  return [
    value,
    bytes.toString('base64'),
    Buffer.concat([Buffer.from('x'), bytes]).toString('base64url'),
    encodeURIComponent(value),
    bytes.toString('hex'),
    JSON.stringify(value).slice(1, -1),
  ];
}

function makeText(secrets, occurrences) {
  const lines = [];
  let size = 0;
  while (size < MIB) {
    const line = logLine();
    lines.push(line);
    size += line.length + 1;
  }
  for (let i = 0; i < occurrences; i++) {
    const at = Math.floor(random() * lines.length);
    lines[at] += ` secret=${pick(encodings(pick(secrets).value))}`;
  }
  return lines.join('\n').slice(0, MIB);
}

function naiveRedactor(secrets) {
  const pairs = secrets.flatMap((s) =>
    patternsFor(s.value).map((p) => [p, `[REDACTED:${s.name}]`]),
  );
  // Longest first, so that a value is not half-replaced by one of its own lines.
  pairs.sort((a, b) => b[0].length - a[0].length);
  return {
    patterns: pairs.length,
    redact(text) {
      for (const [p, marker] of pairs) text = text.replaceAll(p, marker);
      return text;
    },
  };
}

/** Best of several runs, by wall clock and by CPU time (the machine may be busy with others). */
function measure(fn, text, minMs) {
  fn(text); // warm up
  let runs = 0;
  let best = Infinity;
  let bestCpu = Infinity;
  const start = performance.now();
  while (runs < 3 || performance.now() - start < minMs) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    fn(text);
    const c = process.cpuUsage(c0);
    best = Math.min(best, performance.now() - t0);
    bestCpu = Math.min(bestCpu, (c.user + c.system) / 1000);
    runs++;
    if (runs >= 50) break;
  }
  const mib = text.length / MIB;
  return { wall: mib / (best / 1000), cpu: mib / (Math.max(bestCpu, 0.001) / 1000) };
}

const fmt = (rate) =>
  `${rate.wall.toFixed(rate.wall < 10 ? 1 : 0)} (cpu ${rate.cpu.toFixed(rate.cpu < 10 ? 1 : 0)})`;

const rows = [];
for (const count of [10, 100, 1000]) {
  const secrets = makeSecrets(count);
  const text = makeText(secrets, 50);
  const clean = makeText(secrets, 0);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const ours = createRedactor(secrets);
  const buildMs = performance.now() - t0;
  const buildCpu = process.cpuUsage(cpu0);
  const naive = naiveRedactor(secrets);
  const oursRate = measure((t) => ours.redact(t), text, 1000);
  const cleanRate = measure((t) => ours.redact(t), clean, 1000);
  const naiveRate = measure((t) => naive.redact(t), text, count >= 1000 ? 0 : 1000);
  const same =
    ours.redact(text).replace(/\[REDACTED:\w+\]/g, 'M') ===
    naive.redact(text).replace(/\[REDACTED:\w+\]/g, 'M');
  rows.push({
    secrets: count,
    patterns: ours.patternCount,
    'build ms': buildMs.toFixed(0),
    'build cpu ms': ((buildCpu.user + buildCpu.system) / 1000).toFixed(0),
    'ours MB/s': fmt(oursRate),
    'ours, clean text MB/s': fmt(cleanRate),
    'naive MB/s': fmt(naiveRate),
    ratio: `${(oursRate.wall / naiveRate.wall).toFixed(0)}x`,
    'same output': same ? 'yes' : 'differs (merge)',
  });
}
console.log(
  `redaction of 1 MiB (MB = MiB), node ${process.version}, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`,
);
console.table(rows);
