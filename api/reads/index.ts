// Every read, one row each (api/reads/read.ts), by area: the router, the OpenAPI document, the MCP
// tools and /llms.txt are made from this table.
import type Router from '@koa/router';
import { readRouter, type Read, type ReadEnv } from './read.js';
import { SITE_READS } from './site.js';
import { EXPLORER_READS } from './explorer.js';
import { V1_READS } from './log.js';
import { NUMBERS_READS } from './numbers.js';
import { READER_READS } from './readers.js';
import { RECORD_READS } from './record.js';
import { GOVERNANCE_READS } from './governance.js';

export { routeOf, readRouter, type Param, type Read, type ReadEnv } from './read.js';

/** Every read this service serves, in the order the document lists them. */
export const READ_TABLE: readonly Read[] = [
  ...SITE_READS,
  ...EXPLORER_READS,
  ...V1_READS,
  ...NUMBERS_READS,
  ...READER_READS,
  ...RECORD_READS,
  ...GOVERNANCE_READS,
];

/** The reads that are operations of the OpenAPI document (and, those with `tool`, MCP tools). */
export const READS: readonly Read[] = READ_TABLE.filter((r) => r.unlisted === undefined);

/** A router of the rows at `paths` only, with the parts they need (for tests and benchmarks of a few reads). */
export function readRoutes(env: Partial<ReadEnv>, paths: readonly string[]): Router {
  const rows = paths.map((p) => {
    const row = READ_TABLE.find((r) => r.path === p);
    if (row === undefined) throw new Error(`no read ${p}`);
    return row;
  });
  return readRouter(rows, env as ReadEnv);
}
