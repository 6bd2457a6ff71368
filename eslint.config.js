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

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'coverage/**',
      'desktop/dist/**',
      'desktop/renderer/dist/**',
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
  { files: ['server/**/*.ts'], rules: forbid(['cli', 'desktop', 'bench', 'e2e']) },
  { files: ['cli/**/*.ts'], rules: forbid(['desktop', 'bench', 'e2e']) },
  { files: ['desktop/main/**/*.ts'], rules: forbid(['cli', 'desktop/renderer', 'bench', 'e2e']) },
  {
    files: ['desktop/renderer/**/*.{ts,tsx}'],
    rules: forbid(
      ['core', 'server', 'cli', 'desktop/main', 'bench', 'e2e'],
      [{ group: ['node:*'], message: 'The renderer talks HTTP only; Node built-ins are not available.' }],
    ),
  },
  { files: ['cli/bin/*.js'], languageOptions: { globals: { process: 'readonly' } } },
);
