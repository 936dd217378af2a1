// Lint rules for the whole tree: correctness only, no style (Prettier formats; see .prettierrc.json).
// `npm run lint`; part of `npm test` (scripts/test.mjs).
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The code that ships (extension, webview, probe package) gets the typed rules too. They need a
// TypeScript program per part, which on the whole tree (tests included) cost ~150 s of CPU against
// ~55 s for these three parts, and found nothing in the tests the untyped rules and `tsc` miss.
const shipped = ['extension/src/**/*.ts', 'webview/src/**/*.ts', 'runtime-probe/src/**/*.ts'];

// Node's globals for the plain JavaScript files (scripts, fixture apps, bin); TypeScript files get
// theirs from their tsconfig's `types`, which `tsc` checks.
const nodeGlobals = Object.fromEntries(
  (
    'AbortController AbortSignal Buffer TextDecoder TextEncoder URL URLSearchParams clearImmediate clearInterval clearTimeout ' +
    'console fetch global performance process queueMicrotask setImmediate setInterval setTimeout structuredClone'
  )
    .split(' ')
    .map((name) => [name, 'readonly']),
);

export default defineConfig(
  globalIgnores(['**/node_modules/', '**/dist/', '**/out/', '.test-output/', 'bench/results/', 'test/fixtures/pack-consumer/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // `_name` marks a parameter an interface requires and a binding kept for its position.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // No `any` across a boundary: a value of unknown shape is `unknown` and gets checked.
      '@typescript-eslint/no-explicit-any': 'error',
      // A `let` a closure reads before its one assignment (a handler that disposes its own subscription) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Path references are how a hand-written declaration of an untyped module reaches a part's program.
      '@typescript-eslint/triple-slash-reference': ['error', { path: 'always', types: 'prefer-import', lib: 'always' }],
      'no-unreachable-loop': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: nodeGlobals },
  },
  {
    // CommonJS files (fixture apps and workers run as plain `node x.cjs`, the package's bin): `require` is how they import.
    files: ['**/*.cjs', 'test/fixtures/leak-gate-project/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly', __filename: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: shipped,
    languageOptions: {
      parserOptions: {
        project: ['runtime-probe/tsconfig.json', 'extension/tsconfig.json', 'webview/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-implied-eval': 'error',
      // Unions are switched on exhaustively; a `default:` is an explicit decision about the rest.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // The emitter instrumentation wraps other libraries' methods in place: a wrapper forwards
    // `arguments` as they came (arity, no array per call on the app's hot path) and its own `this`
    // is the app's receiver, so the instrumentation's `this` gets a name.
    files: ['runtime-probe/src/emitters/**/*.ts'],
    rules: {
      'prefer-rest-params': 'off',
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
  {
    // `Function` where any callable at all is meant: the methods and listeners other libraries hold,
    // and V8's stack API (`Error.captureStackTrace(target, above: Function)`), and the tests of both.
    files: ['runtime-probe/src/emitters/**/*.ts', 'runtime-probe/src/recorder/sites.ts', 'test/unit/emitters/**/*.ts', 'test/unit/probe/site-capture.test.ts'],
    rules: { '@typescript-eslint/no-unsafe-function-type': 'off' },
  },
  {
    // Compile-time API tests: a handler's parameter exists to have its type asserted.
    files: ['test/types/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests may hand the code malformed input on purpose.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
