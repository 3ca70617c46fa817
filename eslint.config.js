// `npm run lint`: typescript-eslint's recommended rules over the whole repository, plus formatting by
// Prettier (.prettierrc.json). The few rules switched off say why.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        Buffer: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        performance: 'readonly',
        URL: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: {
      // fengari's API is untyped JavaScript: its values are `any` at the boundary (src/lua/engine/).
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // fengari's internals are touched in src/lua/engine/ only; the rest of src/ uses engine/index.ts (src/lua/README.md).
    files: ['src/**/*.ts'],
    ignores: ['src/lua/engine/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['fengari', 'fengari/*', '**/engine/*', '!**/engine/index.ts'], message: 'Import src/lua/engine/index.ts: only engine/ touches fengari.' },
          ],
        },
      ],
    },
  },
);
