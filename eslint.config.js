// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The module arrows (docs/architecture.md): core imports nothing of the other rooms; server imports
 * core; cli imports core and server; the desktop main process imports core and server; the desktop
 * renderer talks HTTP only; the typed HTTP client (client/, generated from the server's OpenAPI
 * document) imports none of them, so the CLI and the renderer share it. Each room gets the list of
 * rooms it may not reach.
 */
const forbid = (rooms, extra = []) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        ...rooms.map((room) => ({
          group: [`**/${room}/**`, `**/${room}`],
          message: `This import crosses a module arrow (see docs/architecture.md): ${room} is not reachable from here.`,
        })),
        ...extra,
      ],
    },
  ],
});

/**
 * The tokens module's surface: outside core, code reaches core/tokens through its index.ts (the
 * service, its limits and the type table) and contract.ts (the types), never its insides. Core's
 * own modules that work on token rows (detokenize, reactors, key rotation…) may use the insides;
 * tests may too, to build fixtures.
 */
const TOKENS_SURFACE = {
  group: ['**/core/tokens/*', '!**/core/tokens/index.ts', '!**/core/tokens/contract.ts'],
  message:
    'Import the tokens module through core/tokens/index.ts (types: contract.ts); the other files are its insides.',
};
const TESTS = ['**/*.test.ts', '**/test-support/**'];

/** A room's arrows; its code (not its tests) also keeps to the tokens surface (the later entry wins). */
const room = (dir, rooms) => [
  { files: [`${dir}/**/*.ts`], rules: forbid(rooms) },
  { files: [`${dir}/**/*.ts`], ignores: TESTS, rules: forbid(rooms, [TOKENS_SURFACE]) },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'coverage/**',
      'desktop/dist/**',
      'desktop/renderer/dist/**',
      'desktop/start-screen/dist/**',
      'client/schema.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['core/**/*.ts'],
    ignores: ['core/**/*.test.ts'],
    rules: {
      ...forbid(
        ['server', 'cli', 'desktop', 'bench', 'e2e'],
        [
          {
            group: ['fastify', '@fastify/*', 'commander', '@inquirer/*'],
            message: 'core stays free of HTTP and CLI frameworks.',
          },
        ],
      ),
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  { files: ['client/**/*.ts'], rules: forbid(['core', 'server', 'cli', 'desktop', 'bench', 'e2e']) },
  ...room('server', ['cli', 'desktop', 'bench', 'e2e']),
  ...room('cli', ['desktop', 'bench', 'e2e']),
  ...room('desktop/main', ['cli', 'desktop/renderer', 'bench', 'e2e']),
  {
    files: ['desktop/renderer/**/*.{ts,tsx}', 'desktop/start-screen/**/*.{ts,tsx}'],
    rules: forbid(
      ['core', 'server', 'cli', 'desktop/main', 'bench', 'e2e'],
      [{ group: ['node:*'], message: 'The renderer talks HTTP only; Node built-ins are not available.' }],
    ),
  },
  // The bridge's channel map is read by the main process, the preload and the pages: it imports nothing.
  {
    files: ['desktop/bridge/**/*.ts'],
    ignores: TESTS,
    rules: forbid(
      ['core', 'server', 'cli', 'desktop/main', 'desktop/renderer', 'desktop/preload', 'bench', 'e2e'],
      [{ group: ['node:*', '*'], message: 'The bridge map imports nothing: every side reads it.' }],
    ),
  },
  { files: ['cli/bin/*.js'], languageOptions: { globals: { process: 'readonly' } } },
);
