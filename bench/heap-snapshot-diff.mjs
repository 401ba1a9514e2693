// Compares two V8 heap snapshots (`.heapsnapshot`, e.g. from `bench/soak.mjs` with
// SOAK_SNAPSHOTS): objects counted and their own sizes summed by constructor (by node type for
// strings, closures, code and the like), the groups that grew most from the first to the second
// printed first. Usage: node bench/heap-snapshot-diff.mjs before.heapsnapshot after.heapsnapshot [top]
import { readFileSync } from 'node:fs';

const [beforeFile, afterFile, topArg] = process.argv.slice(2);
if (afterFile === undefined) {
  console.error(
    'usage: node bench/heap-snapshot-diff.mjs before.heapsnapshot after.heapsnapshot [top]',
  );
  process.exit(2);
}
const TOP = Number(topArg ?? 40);

/** Map of group -> { count, size } for one snapshot. */
function groups(file) {
  const { snapshot, nodes, strings } = JSON.parse(readFileSync(file, 'utf8'));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const width = fields.length;
  const [TYPE, NAME, SIZE] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const byGroup = new Map();
  let total = 0;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + TYPE]];
    const size = nodes[i + SIZE];
    total += size;
    // Objects by their constructor's name; everything else by its kind, with closures and
    // native objects also by name, since a leak of callbacks shows there.
    const name = strings[nodes[i + NAME]];
    const group =
      type === 'object' || type === 'native'
        ? name
        : type === 'closure'
          ? `(closure ${name || 'anonymous'})`
          : `(${type})`;
    const entry = byGroup.get(group) ?? { count: 0, size: 0 };
    entry.count++;
    entry.size += size;
    byGroup.set(group, entry);
  }
  return { byGroup, total, count: nodes.length / width };
}

const a = groups(beforeFile);
const b = groups(afterFile);
const kb = (n) => (n / 1024).toFixed(1);
console.log(
  `objects ${a.count} -> ${b.count}; self sizes ${kb(a.total)} -> ${kb(b.total)} KB (${kb(b.total - a.total)} KB)`,
);
const rows = [...new Set([...a.byGroup.keys(), ...b.byGroup.keys()])].map((group) => {
  const x = a.byGroup.get(group) ?? { count: 0, size: 0 };
  const y = b.byGroup.get(group) ?? { count: 0, size: 0 };
  return { group, x, y, dSize: y.size - x.size, dCount: y.count - x.count };
});
rows.sort((p, q) => Math.abs(q.dSize) - Math.abs(p.dSize));
console.log('| group | count before | count after | Δ count | KB before | KB after | Δ KB |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const r of rows.slice(0, TOP))
  console.log(
    `| ${r.group.slice(0, 80).replaceAll('|', '\\|')} | ${r.x.count} | ${r.y.count} | ${r.dCount} | ${kb(r.x.size)} | ${kb(r.y.size)} | ${kb(r.dSize)} |`,
  );
