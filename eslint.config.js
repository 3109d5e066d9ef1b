// ESLint: typescript-eslint's recommended rules over the TypeScript sources. `any` is an error
// everywhere but in tests, where fixtures of foreign shapes are read (README, "Formatting and lint").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** An HTML element's start or end tag, as a selector's regular expression. */
const MARKUP =
  '/<\\/?(a|b|i|p|q|br|dd|dl|dt|em|h[1-6]|li|ol|td|th|tr|ul|div|nav|pre|svg|code|form|head|html|link|mark|meta|body|span|' +
  'time|input|label|small|style|table|title|button|header|option|script|select|strong|section|blockquote)[\\s>\\/]/i';

const MARKUP_RULES = [
  {
    selector: `TemplateLiteral:not(TaggedTemplateExpression > TemplateLiteral) > TemplateElement[value.raw=${MARKUP}]`,
    message: 'markup in a plain template: write it with html`...` (api/explorer/html.ts)',
  },
  { selector: `Literal[value=${MARKUP}]`, message: 'markup in a plain string: write it with html`...` (api/explorer/html.ts)' },
];
const RAW_RULE = {
  selector: "CallExpression[callee.name='raw']",
  message: 'raw() takes text as markup unescaped: only in api/explorer/shell.ts, markdown.ts and browser-check.ts',
};

export default tseslint.config(
  { ignores: ['**/dist/', '**/node_modules/', 'data/', 'scripts/', '*.config.js', '*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // HTML is escaped by default (api/explorer/html.ts): markup is written with the `html` tag, which
    // escapes every value placed in it. escapeMarkup is called by html.ts alone, and by the two
    // writers that are not the explorer's pages: the Markdown renderer and the Atom feeds.
    files: ['**/*.ts'],
    ignores: ['api/explorer/html.ts', 'api/explorer/markdown.ts', 'lib/record/views/feeds.ts', 'lib/protocol/markup.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/protocol/markup.js'],
              importNames: ['escapeMarkup'],
              message: 'write markup with html`...` (api/explorer/html.ts), which escapes what is placed in it',
            },
          ],
        },
      ],
    },
  },
  {
    // Markup in a plain string or template (not the `html` tag) is concatenated unescaped: refused in
    // api/. raw() (markup taken as it stands) only where the text is markup by construction.
    files: ['api/**/*.ts'],
    ignores: ['api/explorer/browser-check.ts', 'api/explorer/markdown.ts'],
    rules: { 'no-restricted-syntax': ['error', ...MARKUP_RULES, RAW_RULE] },
  },
  {
    files: ['api/explorer/html.ts', 'api/explorer/shell.ts'],
    rules: { 'no-restricted-syntax': ['error', ...MARKUP_RULES] },
  },
  {
    files: ['test/**/*.ts', 'log/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
