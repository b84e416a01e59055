import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist-test/', '.canopy-cache/', 'scratch/', 'bench/results/', 'test-artifacts/', 'src/root/public/vendor/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The dashboard's browser modules: undefined names are caught by tsc -p src/root/public (checkJs).
    files: ['src/root/public/**/*.js'],
    rules: { 'no-undef': 'off' },
  },
  {
    files: ['src/merge/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['../leaf/*', '../aggregator/*', '../root/*', '../data/*', 'node:*', 'undici', 'fastify'] }],
    },
  },
);
