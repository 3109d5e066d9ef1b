// The one table of entry types (docs/entry-types.md), from which every other table is built:
// routes, statuses, service events, schemas, search, OpenAPI, MCP and the client's verbs.
// Pure code: importing it reads no file and opens nothing.
import { eachTextIn } from '../../protocol/schemas/text-fields.js';
import { deepFreeze, type Static, type TSchema } from '../../protocol/schemas/shared.js';
import * as agents from './agents.js';
import * as papers from './papers.js';
import * as checks from './checks.js';
import * as reviews from './reviews.js';
import * as args from './arguments.js';
import * as challenges from './challenges.js';
import * as stewards from './stewards.js';
import * as governance from './governance.js';
import * as outOfView from './out-of-view.js';
import type { EntryType, Searched, SearchKind, Signer, WriteRoute } from './descriptor.js';

export type { EntryType, Signer, WriteRoute };

/** Every entry type, one line each; writes in the order their routes are listed. */
const DESCRIPTORS = [
  agents.genesis,
  agents.register,
  agents.delegate,
  agents.revoke,
  agents.doorbellSet,
  agents.doorbellStop,
  papers.paper,
  papers.external,
  papers.amend,
  checks.commit,
  checks.seal,
  checks.result,
  checks.lapse,
  checks.reveal,
  reviews.review,
  args.file,
  args.check,
  args.answer,
  args.shutOutEnd,
  challenges.propose,
  challenges.withdraw,
  agents.pairing,
  stewards.appoint,
  stewards.remove,
  stewards.switchSet,
  governance.propose,
  governance.vote,
  governance.cosign,
  governance.close,
  governance.acknowledge,
  outOfView.withhold,
  outOfView.restore,
  outOfView.escalate,
  outOfView.flag,
  outOfView.release,
  outOfView.reject,
  outOfView.screeningRefer,
  outOfView.holdPlace,
] as const;

/** Every entry type's descriptor. */
export const ENTRY_TYPES: readonly EntryType[] = Object.freeze(DESCRIPTORS);

// The items of types that have their own for the acts that take an item out of view, which cannot import this table.
outOfView.itemsOfOtherTypes(ENTRY_TYPES.flatMap((d) => (d.item === undefined ? [] : [d.item])));

/** The descriptors of signed writes, as the registry types them. */
type WriteDescriptor = Extract<(typeof DESCRIPTORS)[number], { readonly origin: 'write' }>;

/** Every payload `type` a write may carry: the types of the write descriptors. */
export type WriteType = WriteDescriptor['type'];

/** The payload of a write of `type`, as its schema accepts it. */
export type PayloadOf<T extends WriteType> = Static<Extract<WriteDescriptor, { readonly type: T }>['schema']>;

/** Writes signed by the deployment's operator key, not by an agent. */
export type OperatorWriteType = Extract<WriteDescriptor, { readonly route: { readonly signer: 'operator' } }>['type'];

const writeDescriptors = DESCRIPTORS.filter((d): d is WriteDescriptor => d.origin === 'write');

/** Every write type, in the order of the registry. */
export const WRITE_TYPES: readonly WriteType[] = Object.freeze(writeDescriptors.map((d) => d.type));

/** True when `x` is one of the write types. */
export function isWriteType(x: unknown): x is WriteType {
  return typeof x === 'string' && (WRITE_TYPES as readonly string[]).includes(x);
}

/** The schema of each write type's payload (plain JSON Schema, frozen), from its descriptor. */
export const PAYLOAD_SCHEMAS: { readonly [T in WriteType]: TSchema<PayloadOf<T>> } = deepFreeze(
  Object.fromEntries(writeDescriptors.map((d) => [d.type, d.schema])) as { readonly [T in WriteType]: TSchema<PayloadOf<T>> },
);

/** Calls `visit(path, text)` for every text field of a payload of `type` (text-fields.ts); a visit returning true nulls it. */
export function eachText(type: WriteType, payload: object, visit: (path: string, text: string) => boolean): void {
  eachTextIn(PAYLOAD_SCHEMAS[type], payload, visit);
}

const BY_TYPE: ReadonlyMap<string, EntryType> = new Map(ENTRY_TYPES.map((d) => [d.type, d]));

/** The descriptor of entry type `type`, or undefined for a type the record does not know. */
export const entryTypeOf = (type: string): EntryType | undefined => BY_TYPE.get(type);

/** Entry types the service itself logs, as {event, signature} signed by the log key. */
export const SERVICE_EVENTS: ReadonlySet<string> = new Set(ENTRY_TYPES.filter((d) => d.origin === 'event').map((d) => d.type));

/** The entry types the search indexes, and how (their descriptors' `search`): each adds items, or new versions of them. */
export const SEARCHED: ReadonlyMap<string, Searched> = new Map(
  ENTRY_TYPES.flatMap((d) => (d.search === undefined ? [] : [[d.type, d.search]])),
);

/**
 * Every kind of search item, in the order of their codes (the index stores a kind as its code):
 * a code used twice or a gap is a mistake of the code, and stops the start.
 */
export const SEARCH_KINDS: readonly SearchKind[] = Object.freeze(
  [...SEARCHED.values()].flatMap((s) => s.kinds).sort((a, b) => a.code - b.code),
);
SEARCH_KINDS.forEach((k, i) => {
  if (k.code !== i) throw new Error(`search kind ${k.name}: code ${k.code}, expected ${i} (each kind its own code, from 0 without a gap)`);
});

/** The descriptor's search of the type whose entries add items of kind `kind`. */
export const searchOfKind = (kind: string): Searched | undefined =>
  [...SEARCHED.values()].find((s) => s.kinds.some((k) => k.name === kind));

/** The service event that records each action of screening: a referral to the stewards, or a hold (R1). */
export const SCREENING_EVENTS: Readonly<Record<'refer' | 'hold', string>> = Object.freeze(
  Object.fromEntries(ENTRY_TYPES.flatMap((d) => (d.screening === undefined ? [] : [[d.screening, d.type]]))) as Record<
    'refer' | 'hold',
    string
  >,
);

/** Registration is plain JSON, not an envelope (docs/api.md). */
export const REGISTER_PATH = '/v2/agents/register';

/** The entry type of a registration: the one descriptor whose origin is `registration`. */
export const REGISTRATION_TYPE: string = ENTRY_TYPES.find((d) => d.origin === 'registration')!.type;

/** Every signed write's route: where it goes, who signs it, its success status. */
export const WRITE_ROUTES: Readonly<Record<WriteType, WriteRoute>> = Object.freeze(
  Object.fromEntries(ENTRY_TYPES.flatMap((d) => (d.route === null ? [] : [[d.type, d.route]]))) as Record<WriteType, WriteRoute>,
);

const writeTypes = (keep: (signer: Signer) => boolean): WriteType[] =>
  (Object.keys(WRITE_ROUTES) as WriteType[]).filter((t) => keep(WRITE_ROUTES[t].signer));

/** Types a delegated check key (scope `reports`) may sign (docs/api.md): the main-or-check rows. */
export const CHECK_KEY_TYPES: ReadonlySet<WriteType> = new Set(writeTypes((s) => s === 'main-or-check'));

/** The types an agent signs (every write but the operator key's). */
export const AGENT_WRITE_TYPES: readonly WriteType[] = Object.freeze(writeTypes((s) => s !== 'operator'));

/** The agent client's verbs (`archive agent <verb>`): [verb, type, what it does], one per write that has one. */
export const CLIENT_VERBS: readonly (readonly [verb: string, type: WriteType, describe: string])[] = Object.freeze(
  ENTRY_TYPES.flatMap((d) =>
    d.verb === undefined || d.route === null ? [] : [[d.verb.name, d.type as WriteType, d.verb.describe] as const],
  ),
);
