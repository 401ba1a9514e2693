import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The folder boundaries are lint rules: these tests prove that `npm run lint` fails on a
// violation, and that every folder README restates its row of the table in eslint.config.js.

const root = fileURLToPath(new URL('../../', import.meta.url));
const configUrl = new URL('../../eslint.config.js', import.meta.url).href;
const { mayImport, PRODUCERS } = (await import(configUrl)) as {
  mayImport: Record<string, string[]>;
  PRODUCERS: string[];
};
const eslint = new ESLint({ cwd: root });
// no-cycle walks the whole import graph below a fixture; the path tests do not need it.
const pathsOnly = new ESLint({
  cwd: root,
  overrideConfig: { rules: { 'import-x/no-cycle': 'off' } },
});

/** Rule ids reported for `code` as if it were the file at `path` (relative to the root). */
async function ruleIds(path: string, code: string, linter = pathsOnly): Promise<string[]> {
  const [result] = await linter.lintText(code, { filePath: `${root}${path}` });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('folder boundaries', () => {
  it('rejects an import of a folder above (src/store importing src/cli)', async () => {
    const ids = await ruleIds(
      'src/store/boundary-fixture.ts',
      "import * as cli from '../cli/main.js';\nexport const used = cli;\n",
    );
    expect(ids).toEqual(['import-x/no-restricted-paths']);
  });

  it('keeps the interpreter self-contained and the runtime free of feature folders', async () => {
    expect(
      await ruleIds(
        'src/starlark/eval/boundary-fixture.ts',
        "import * as log from '../../log/logger.js';\nexport const used = log;\n",
      ),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await ruleIds(
        'src/runtime/boundary-fixture.ts',
        "import * as scripts from '../scripts/script-service.js';\nexport const used = scripts;\n",
      ),
    ).toEqual(['import-x/no-restricted-paths']);
  });

  it('accepts an import the table allows', async () => {
    expect(
      await ruleIds(
        'src/api/boundary-fixture.ts',
        "import * as scripts from '../scripts/script-service.js';\nexport const used = scripts;\n",
      ),
    ).toEqual([]);
  });

  it('keeps the store off the domain: its records come from the contracts leaf', async () => {
    expect(
      await ruleIds(
        'src/store/boundary-fixture.ts',
        "import * as views from '../scripts/script-schema.js';\nexport const used = views;\n",
      ),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await ruleIds(
        'src/store/boundary-fixture.ts',
        "import * as record from '../contracts/script-record.js';\nexport const used = record;\n",
      ),
    ).toEqual([]);
  });

  it('keeps the contracts a leaf that every folder may import', async () => {
    expect(
      await ruleIds(
        'src/contracts/boundary-fixture.ts',
        "import * as errors from '../errors/catalogue.js';\nexport const used = errors;\n",
      ),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await ruleIds(
        'src/config/boundary-fixture.ts',
        "import * as names from '../contracts/secret-names.js';\nexport const used = names;\n",
      ),
    ).toEqual([]);
  });

  it('puts schedules and chat a floor above scripts, secrets, engine and auth', async () => {
    for (const below of ['scripts', 'secrets', 'engine', 'auth']) {
      for (const above of ['schedules', 'chat']) {
        expect(
          (mayImport[below] ?? []).includes(above),
          `src/${below} may not import src/${above}`,
        ).toBe(false);
      }
    }
    expect(
      await ruleIds(
        'src/scripts/boundary-fixture.ts',
        "import * as chat from '../chat/split-message.js';\nexport const used = chat;\n",
      ),
    ).toEqual(['import-x/no-restricted-paths']);
  });

  it('keeps workers away from every queue producer', async () => {
    for (const producer of PRODUCERS) {
      const ids = await ruleIds(
        'src/workers/boundary-fixture.ts',
        `import * as producer from '../${producer.slice('src/'.length).replace(/\.ts$/, '.js')}';\nexport const used = producer;\n`,
      );
      expect(ids, producer).toEqual(['import-x/no-restricted-paths']);
    }
  });

  it('allows ioredis only in the store, queue and worker plumbing', async () => {
    const code = "import type { Redis } from 'ioredis';\nexport type Connection = Redis;\n";
    expect(await ruleIds('src/api/boundary-fixture.ts', code)).toEqual(['no-restricted-imports']);
    expect(await ruleIds('src/store/boundary-fixture.ts', code)).toEqual([]);
  });

  it('rejects an import cycle between files', async () => {
    // binding.ts is imported by resolver.ts: importing the resolver back closes a loop.
    const ids = await ruleIds(
      'src/starlark/syntax/binding.ts',
      "import { resolveFile } from './resolver.js';\nexport const resolve = resolveFile;\n",
      eslint,
    );
    expect(ids).toEqual(['import-x/no-cycle']);
  });
});

/** The folder edges the files of src/ make: `from -> to` for each relative import across folders. */
function usedEdges(): Set<string> {
  const src = `${root}src`;
  const edges = new Set<string>();
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = resolve(entry.parentPath, entry.name);
    const from = relative(src, file).split('/')[0];
    const text = readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const to = relative(src, resolve(dirname(file), spec ?? '')).split('/')[0];
      if (to && to !== from && !to.startsWith('..') && !to.endsWith('.js')) {
        edges.add(`${from} -> ${to}`);
      }
    }
  }
  return edges;
}

describe('the boundary table', () => {
  it('lists only the edges that exist: a row naming a folder nobody imports is stale', () => {
    const used = usedEdges();
    const listed = Object.entries(mayImport).flatMap(([from, allowed]) =>
      allowed.map((to) => `${from} -> ${to}`),
    );
    expect(listed.filter((edge) => !used.has(edge))).toEqual([]);
  });
});

describe('folder READMEs', () => {
  const folders = readdirSync(`${root}src`, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);

  it('every src folder has a row in the table', () => {
    expect(folders.filter((f) => !(f in mayImport))).toEqual([]);
  });

  it.each(folders)('src/%s/README.md restates its row', (folder) => {
    const readme = `${root}src/${folder}/README.md`;
    expect(existsSync(readme), readme).toBe(true);
    const text = readFileSync(readme, 'utf8').replace(/\s+/g, ' ');
    const sentence = /May import (.*?)\.(?: |$)/.exec(text)?.[1];
    expect(sentence, `${readme} has no "May import …" sentence`).toBeDefined();
    const named = [...(sentence ?? '').matchAll(/`src\/([a-z-]+)`/g)]
      .map((m) => m[1])
      .filter((f) => f !== folder);
    expect(new Set(named)).toEqual(new Set(mayImport[folder]));
  });
});
