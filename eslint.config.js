import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The folder import boundaries: which `src/` folders the files of each folder may import, besides
 * their own folder, `src/version.ts`, node built-ins and npm packages. This table is the one
 * definition; each folder README's "May import" sentence restates its row, and
 * test/lint/boundaries.test.ts checks that they agree. A row lists only the edges that exist: a
 * new edge is a decision, made here first.
 *
 * The floors, top to bottom:
 *   cli
 *   api > mcp > workers
 *   schedules, chat, backup       compose the domain below (schedules deliver through chat)
 *   scripts, secrets, engine, auth
 *   runtime > queue > store, net, starlark
 *   config, log > errors, contracts
 * Data flows down; nothing imports a folder above it. `contracts` holds the shared records,
 * codecs and patterns (script record, hashes, secret and script names, provider names) and
 * imports nothing, so every folder may take them without climbing. `api` and `mcp` reach the
 * workers through queue contracts, never by import.
 */
export const mayImport = {
  cli: [
    'api',
    'mcp',
    'workers',
    'schedules',
    'chat',
    'backup',
    'scripts',
    'secrets',
    'engine',
    'auth',
    'runtime',
    'store',
    'net',
    'starlark',
    'errors',
    'config',
    'log',
  ],
  api: [
    'mcp',
    'schedules',
    'chat',
    'backup',
    'scripts',
    'secrets',
    'engine',
    'auth',
    'runtime',
    'queue',
    'store',
    'net',
    'contracts',
    'errors',
    'config',
  ],
  mcp: [
    'chat',
    'scripts',
    'runtime',
    'queue',
    'store',
    'net',
    'contracts',
    'errors',
    'config',
    'log',
  ],
  workers: [
    'schedules',
    'scripts',
    'secrets',
    'runtime',
    'queue',
    'store',
    'net',
    'starlark',
    'contracts',
    'errors',
    'log',
  ],
  schedules: [
    'chat',
    'scripts',
    'engine',
    'runtime',
    'queue',
    'store',
    'net',
    'contracts',
    'errors',
    'config',
    'log',
  ],
  chat: ['scripts', 'engine', 'runtime', 'store', 'contracts', 'errors', 'config', 'log'],
  backup: ['scripts', 'secrets', 'store', 'contracts', 'errors'],
  scripts: ['runtime', 'queue', 'store', 'starlark', 'contracts', 'errors', 'log'],
  secrets: ['store', 'net', 'contracts', 'errors', 'config', 'log'],
  engine: ['store', 'net', 'errors', 'config', 'log'],
  auth: ['runtime', 'store', 'net', 'errors', 'config', 'log'],
  runtime: ['queue', 'store', 'config', 'log'],
  queue: ['store', 'errors', 'config'],
  store: ['contracts', 'errors', 'log'],
  net: ['errors'],
  starlark: [],
  config: ['contracts', 'errors'],
  log: ['config'],
  errors: [],
  contracts: [],
};

/** Where ioredis may be imported; everywhere else the Redis type comes from src/store/redis.ts. */
const REDIS_FOLDERS = ['store', 'queue', 'workers'];

/**
 * Every queue producer, by name. Workers consume a queue's contract (schemas, limits), never its
 * producer: the producer is the calling side, and the contract module is where both sides meet.
 */
export const PRODUCERS = ['src/scripts/script-runner.ts'];

/**
 * The only import cycle allowed between files: the Starlark compiler's mutual recursion
 * (statements contain expressions, expressions contain lambdas and comprehensions whose bodies
 * are compiled as functions again), in its closure compiler and its code generator, which
 * compile a nested function with either backend. Splitting it further would only move the
 * recursion behind callbacks.
 */
const COMPILER_RECURSION = [
  'src/starlark/eval/compile-assign.ts',
  'src/starlark/eval/compile-binary.ts',
  'src/starlark/eval/compile-call.ts',
  'src/starlark/eval/compile-comp.ts',
  'src/starlark/eval/compile-expr.ts',
  'src/starlark/eval/compile-function.ts',
  'src/starlark/eval/compile-stmt.ts',
  'src/starlark/eval/gen-binary.ts',
  'src/starlark/eval/gen-call.ts',
  'src/starlark/eval/gen-comp.ts',
  'src/starlark/eval/gen-expr.ts',
  'src/starlark/eval/gen-fast-helpers.ts',
  'src/starlark/eval/gen-function.ts',
  'src/starlark/eval/gen-fused.ts',
  'src/starlark/eval/gen-loop.ts',
  'src/starlark/eval/gen-ops.ts',
  'src/starlark/eval/gen-runtime.ts',
  'src/starlark/eval/gen-stmt.ts',
];

const boundaryZones = Object.entries(mayImport).map(([folder, allowed]) => ({
  target: `./src/${folder}`,
  from: './src',
  except: [`./${folder}`, ...allowed.map((f) => `./${f}`), './version.ts'],
  message:
    allowed.length === 0
      ? `src/${folder} imports nothing outside itself (table in eslint.config.js).`
      : `src/${folder} may import only ${allowed.map((f) => `src/${f}`).join(', ')} (table in eslint.config.js).`,
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'workspace/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        SharedArrayBuffer: 'readonly',
        Atomics: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
      'no-control-regex': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // The dependency graph (for no-cycle) is read by parsing the imported TypeScript files.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: `${import.meta.dirname}/tsconfig.json` }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            ...boundaryZones,
            ...PRODUCERS.map((producer) => ({
              target: './src/workers',
              from: `./${producer}`,
              message: 'Workers consume queue contracts; they never import a producer.',
            })),
          ],
        },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'ioredis',
              message: `ioredis belongs to ${REDIS_FOLDERS.map((f) => `src/${f}`).join(', ')}; take the Redis type from src/store/redis.ts.`,
            },
          ],
        },
      ],
    },
  },
  {
    files: REDIS_FOLDERS.map((f) => `src/${f}/**/*.ts`),
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // One worker class, so that V8 sees one class in BullMQ's calls (start-first-worker.ts).
    files: ['src/**/*.ts'],
    ignores: ['src/workers/start-first-worker.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Worker']",
          message: 'Make BullMQ workers with StartFirstWorker (src/workers/start-first-worker.ts).',
        },
      ],
    },
  },
  {
    files: COMPILER_RECURSION,
    rules: { 'import-x/no-cycle': 'off' },
  },
);
