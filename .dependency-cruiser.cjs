// The layer rule (README, "The layers"), checked by `npm run lint`: pieces depend downward only,
// bin -> api / verify -> the record -> protocol -> log, with no import cycles anywhere.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'engine-by-its-name',
      comment: 'The engine (log/, the package tlog-engine) is imported by its package name only, never by a path into log/.',
      severity: 'error',
      from: { pathNot: '^log/' },
      to: { path: '^log/' },
    },
    {
      name: 'engine-stands-alone',
      comment: 'log/ is a package of its own: it imports nothing outside itself but its declared dependencies and Node.',
      severity: 'error',
      from: { path: '^log/' },
      to: { pathNot: '^log/|^node_modules/', dependencyTypesNot: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'type-only'] },
    },
    {
      name: 'engine-imports-no-application',
      severity: 'error',
      from: { path: '^log/' },
      to: { path: '^(lib|api|verify|bin|bench|examples|test)/' },
    },
    {
      name: 'examples-need-the-engine-alone',
      comment: 'Each example is a package that depends on the engine by its name and on nothing else of this repository.',
      severity: 'error',
      from: { path: '^examples/([^/]+)/' },
      to: { path: '^(lib|api|verify|bin|bench|test|log)/|^examples/', pathNot: '^examples/$1/' },
    },
    {
      name: 'protocol-below-the-record',
      severity: 'error',
      from: { path: '^lib/protocol/' },
      to: { path: '^(lib/record|lib/service|lib/client|api|verify|bin|examples)/' },
    },
    {
      name: 'record-is-pure',
      comment: 'The record is a deterministic fold: no service, client, HTTP or verifier code, no file system, no network.',
      severity: 'error',
      from: { path: '^lib/record/' },
      to: { path: '^(lib/service|lib/client|api|verify|bin|examples)/|^(node:)?(fs|fs/promises|net|http|https|dns|child_process)$' },
    },
    {
      name: 'record-rooms-by-their-index',
      comment:
        'Outside lib/record/, a room of the record is imported by its index.ts only (docs/entry-types.md#where-the-records-code-sits).',
      severity: 'error',
      from: { pathNot: '^lib/record/' },
      to: { path: '^lib/record/', pathNot: '^lib/record/[^/]+/index\\.ts$' },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      from: { path: '^lib/client/' },
      to: { path: '^(lib/service|api|verify|bin)/' },
    },
    {
      name: 'service-below-api',
      severity: 'error',
      from: { path: '^lib/service/' },
      to: { path: '^(api|verify|bin)/' },
    },
    {
      name: 'verify-independent',
      comment: 'The verifier never imports api/, nor the service (which opens a store it does not use).',
      severity: 'error',
      from: { path: '^verify/' },
      to: { path: '^(api|lib/service|bin)/' },
    },
    {
      name: 'api-below-bin',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^(bin|verify)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
