// `npm run lint`: typescript-eslint's recommended rules over the whole repository, plus formatting by
// Prettier (.prettierrc.json). The few rules switched off say why.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config({ ignores: ['dist/**', 'node_modules/**', 'coverage/**'] }, js.configs.recommended, ...tseslint.configs.recommended, {
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
    // fengari's API is untyped JavaScript: its values are `any` at the boundary (src/lua/fengari.ts).
    '@typescript-eslint/no-explicit-any': 'off',
    '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
  },
});
