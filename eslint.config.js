// @ts-check
// Lint: typescript-eslint's recommended rules, plus what keeps the code honest (no silent catch, no unused names).
// Formatting is Prettier's (.prettierrc.json); max-len catches what Prettier cannot break (comments), strings excepted.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'traces/',
      'coverage/',
      'benchmarks/peers/',
      'test/packaging/consumer/broken.*',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      'max-len': [
        'error',
        {
          code: 140,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreRegExpLiterals: true,
          ignoreUrls: true,
        },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      'no-empty': ['error', { allowEmptyCatch: false }],
      // A `let` a closure reads before its one assignment (a server's port, known once it listens) stays a let.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  // Tests read JSON they wrote as `any`, and match aligned CLI columns with literal spaces.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-regex-spaces': 'off' } },
  // A CommonJS consumer of the package, as a user writes it.
  {
    files: ['**/*.cjs'],
    languageOptions: { globals: globals.commonjs },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The viewer's and the board's page scripts run in the browser.
  { files: ['src/app/view/*.js', 'src/server/board/*.js'], languageOptions: { globals: globals.browser } },
);
