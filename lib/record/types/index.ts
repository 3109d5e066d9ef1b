// The entry types: what one is (descriptor.ts), one file per family, and the registry from which every table is built
// (registry.ts). Outside lib/record/, import this index only (docs/entry-types.md#where-the-records-code-sits).
export { assertConstitution, DOORBELL_CADENCES, DOORBELL_KINDS } from './agents.js';
export { DAILY_QUOTA } from './challenges.js';
export { drawCrossCheck } from './checks.js';
export {
  AGENT_WRITE_TYPES,
  CHECK_KEY_TYPES,
  CLIENT_VERBS,
  eachText,
  ENTRY_TYPES,
  entryTypeOf,
  isWriteType,
  PAYLOAD_SCHEMAS,
  type PayloadOf,
  REGISTER_PATH,
  REGISTRATION_TYPE,
  SCREENING_EVENTS,
  SEARCH_KINDS,
  SEARCHED,
  searchOfKind,
  SERVICE_EVENTS,
  WRITE_ROUTES,
  WRITE_TYPES,
  type WriteType,
} from './registry.js';
export type { Columns, SearchHit, SearchItem, SearchKind, Searched } from './descriptor.js';
