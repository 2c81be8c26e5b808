import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// odata/ is the pure protocol library: no I/O of any kind may be imported there.
const ioModules = [
  'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'http', 'node:http', 'https', 'node:https',
  'http2', 'node:http2', 'net', 'node:net', 'tls', 'node:tls', 'dgram', 'node:dgram',
  'child_process', 'node:child_process', 'worker_threads', 'node:worker_threads',
  'undici', 'pg', 'better-sqlite3', 'kysely', 'ioredis', 'fastify',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'data/**', 'coverage/**', 'test/**/.tmp/**', 'test/**/out/**', '**/generated/validators.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', fetch: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // The web interface's scripts run in the browser.
    files: ['service/web/assets/**/*.js'],
    languageOptions: { globals: { document: 'readonly', window: 'readonly', navigator: 'readonly', setInterval: 'readonly' } },
  },
  {
    files: ['odata/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: ioModules.map((name) => ({ name, message: 'odata/ is pure: no I/O imports.' })) }],
    },
  },
);
