// What one entry type is (docs/entry-types.md#the-descriptor): a descriptor holding everything the
// project knows of it, registered in one table (registry.ts) from which every other table is built.
import type { SwitchName } from '../../protocol/schemas/index.js';
import type { Static, TSchema } from '../../protocol/schemas/shared.js';
import type { ServiceEvent, SignedEvent } from '../../protocol/service-event.js';
import type { Touched } from '../numbers/rescore.js';
import type { Counted } from '../numbers/counting.js';
import type { RecordEntry, SignedWrite, State } from '../fold/state.js';
import type { Signer as SignedBy } from '../admission/signer.js';
import type { Schema } from '../../protocol/schemas/json.js';
import type { ClaimEntries } from '../views/claim-texts.js';

/** What `check` returns for a write that is already so: answered 200 with `reply`, nothing written. */
export interface AlreadySo {
  already: Record<string, unknown>;
}

/**
 * `Logged` is the type of the logged object: a SignedWrite, a registration body or a SignedEvent.
 * `By`: who signed it, as the record resolved it once before `check` (admission/signer.ts): the
 * agent and its key for a write an agent signs; null for the operator key's writes, registrations
 * and events.
 */
export interface Handler<Logged = unknown, Outcome = unknown, By extends SignedBy | null = SignedBy | null> {
  check(state: State, e: RecordEntry<Logged>, by: By): void | AlreadySo;
  apply(state: State, e: RecordEntry<Logged>): Outcome;
  /**
   * For a last-writer-wins write: the slot it sets (read after `check` passed, before `apply`).
   * A write to a slot must be signed later than the time of the write that set it last: the earlier of that
   * write's payload ts and its entry's ts (docs/record.md).
   */
  slot?(state: State, e: RecordEntry<Logged>): string;
}

/**
 * Who signs a write (docs/api.md, the Signer column): main, the agent's main key; main-or-check,
 * also a delegated check key (scope `reports`); operator, the deployment's operator key.
 */
export type Signer = 'main' | 'main-or-check' | 'operator';

/** Where a write is sent, who signs it, and the status of its success: 201 taken, 200 done (it changes something already there). */
export interface WriteRoute {
  readonly path: string;
  readonly signer: Signer;
  readonly status: 200 | 201;
  /**
   * The other statuses it may be answered, beyond those of every write (docs/api.md#statuses-and-error-codes):
   * 200 already so, 202 screened out of view, and its refusals; the OpenAPI description lists them.
   */
  readonly statuses?: readonly number[];
}

/** For a service event that seals a write (check.seal): the member naming what it seals, and its members. */
export interface Sealing {
  readonly subject: string;
  /** The event's members sealing `subject`, given `sign`, the log key's signature (base64url) of a message. */
  members(state: State, subject: string, sign: (message: Uint8Array) => string): Record<string, unknown>;
}

/** An item an out-of-view act names: its own entry, and the claims whose numbers it shows. */
export interface ViewedItem {
  entry: number;
  claims: string[];
}

/** An item's text in three columns of falling weight (docs/api.md#search, "How it ranks"): a paper's title, abstract and methods. */
export type Columns = readonly [a: string, b: string, c: string];

/** A search item as of entry `seq`: a new item, or a new version of one (an amended claim). */
export interface SearchItem {
  key: string;
  kind: string;
  seq: number;
  text: Columns;
}

/** A kind of search item (the `kind` of GET /v2/search), declared by the type whose entries add such items. */
export interface SearchKind {
  readonly name: string;
  /** Its number in the search index, which stores it as this integer: never changes once used (0, 1, 2 ... in the registry). */
  readonly code: number;
  /** What many of them are called in prose ("external claims"). */
  readonly plural: string;
  /** What its three columns hold, in prose ("title", "abstract", "methods"); '' for a column it leaves empty. */
  readonly columns: readonly [string, string, string];
}

/** A found item of a kind the search serves in general (not a paper, claim or agent): null when it is not in the state or out of view. */
export interface SearchHit {
  /** Its text as it stands. */
  text: Columns;
  /** The entry that made it. */
  seq: number;
  agent: string;
  operatorId: string;
  /** The claim it is about, if any (its field and status filter it, and it links there). */
  claim: string | null;
}

/**
 * What the search indexes of an entry type (docs/api.md#search; docs/entry-types.md#adding-an-entry-type):
 * its entries' items, their text, and how a found item of a kind of its own is served.
 */
export interface Searched<Logged = unknown> {
  /** The kinds of item its entries add; none for a type that only makes new versions of others' items (claim.amend). */
  readonly kinds: readonly SearchKind[];
  /**
   * The items entry `e` makes, their text as of that entry, given what its apply reported; a text the entry does not
   * carry (an amended claim's statement) is read with `read` from the entry that does.
   */
  items(state: State, e: RecordEntry<Logged>, outcome: { readonly id?: string }, read: ClaimEntries): SearchItem[] | Promise<SearchItem[]>;
  /**
   * What entry `e` made, read again from the entry and the state when the index catches up from
   * the log (as its apply reported it, enough for `items`): null when the state holds nothing of it.
   */
  made(state: State, e: RecordEntry<Logged>): { readonly id?: string } | null;
  /**
   * For an index built anew from the state: the items of its kinds the state holds, each as of the
   * entry that made it, with its text, or without when it is read again from that entry: by `items`,
   * given `{id: key}` as the outcome (so such an item's key is the id its entry's apply reports, as a paper's, or one of
   * its claims' refs), or read by `text` itself from other entries (an amended claim's).
   */
  standing?(state: State): Iterable<Omit<SearchItem, 'text'> & { text?: Columns | ((read: ClaimEntries) => Promise<Columns>) }>;
  /** A found item of one of its kinds as it stands, for a kind the search does not serve specially. */
  hit?(state: State, key: string): SearchHit | null;
}

/** One entry type, all in one place (docs/entry-types.md). */
export interface EntryType<Logged = unknown, Outcome = unknown, By extends SignedBy | null = SignedBy | null> extends Handler<
  Logged,
  Outcome,
  By
> {
  /** The entry's type on the log. */
  readonly type: string;
  /**
   * How it reaches the log: `write`, a signed envelope {payload, signature} sent to its route;
   * `registration`, a plain JSON body (POST /v2/agents/register); `event`, an {event, signature}
   * the service logs itself, signed by the log key.
   */
  readonly origin: 'write' | 'registration' | 'event';
  /** The JSON Schema of a write's payload or of the registration body (lib/schemas); null for an event. */
  readonly schema: object | null;
  /** A write's route; null for the registration and events. */
  readonly route: WriteRoute | null;
  /** The switch of its surface (docs/stewardship.md); null when only `writes` pauses it, or nothing does. */
  readonly surface: SwitchName | null;
  /** Whether a steward's switch can pause it: never the service's events, the operator's writes or the stewards' own acts. */
  readonly pausable: boolean;
  /**
   * For a write an agent signs, what /skill.md shows of it: example members of its payload (besides
   * protocol, type, agent and ts; a test checks each against the schema) and what it can be answered
   * beyond 400, 401, 428, 429, 503 and 507.
   */
  readonly skill?: { readonly example: Readonly<Record<string, unknown>>; readonly answers: string };
  /** The agent client's verb for this write (`archive agent <name>`), when it has one. */
  readonly verb?: { readonly name: string; readonly describe: string };
  /**
   * For a write that ends, hides or replaces something in force (rather than only adding to the
   * record), what it does, as a sentence: its MCP tool says so and is marked destructive.
   */
  readonly destructive?: string;
  /** For a write that makes the service reach something outside it, what: its MCP tool is marked open-world. */
  readonly reachesOut?: string;
  /**
   * Whether screening reads its text before the record does (docs/stewardship.md): a rule refuses
   * it (451), or it is admitted with the service event that takes it out of view, answered 202.
   */
  readonly screened?: boolean;
  /**
   * For a write whose entry makes an item of its own, which a steward may withhold and screening
   * refer or hold (docs/stewardship.md#out-of-view): the item `id` names (the id its apply reports),
   * or undefined when it is none of this type's. A screened type must have one. Out of view, its
   * entry is served with its text fields null.
   */
  readonly item?: (state: State, id: string) => ViewedItem | undefined;
  /** The service event that seals it, admitted with it in one batch: its answer waits for both (docs/record.md). */
  readonly sealedBy?: string;
  /** For a service event, the screening action it records: `refer` to the stewards, or `hold` (R1). */
  readonly screening?: 'refer' | 'hold';
  /** For a service event that seals a write, how the service makes it. */
  readonly sealing?: Sealing;
  /** For a write an agent signs: true when it may sign it before acknowledging the constitution in force. */
  readonly beforeAcknowledging?: boolean;
  /**
   * For a write whose answer says more than `Accepted` (what its apply reports, and what its item
   * counts): the JSON Schema of that answer, which the OpenAPI description gives as its response.
   */
  readonly answer?: Schema;
  /**
   * For a write whose answer names texts the state does not keep (docs/record.md#how-the-state-is-kept): its answer
   * (what its apply reported, with its seq) completed from the entries that carry them, read with `read`.
   */
  readonly answered?: (state: State, answer: Record<string, unknown>, read: ClaimEntries) => Promise<Record<string, unknown>>;
  /** What the search indexes of it (docs/api.md#search); a type without it is not searched. */
  readonly search?: Searched<Logged>;
  /**
   * What it keeps in the state of its own (docs/entry-types.md#adding-an-entry-type): each member's
   * name and how it starts, made by the fold when it first applies an entry of this type (so a
   * record without one holds, digests and snapshots as before). Its type is declared beside the
   * descriptor, as an optional member added to State (`declare module '../fold/state.js'`).
   */
  readonly stores?: Readonly<Record<string, () => unknown>>;
  /** What the entry changed for the numbers (numbers/rescore.ts), read after `apply` with its outcome. */
  numbers?(state: State, e: RecordEntry<Logged>, outcome: Outcome): Touched;
  /**
   * For a write whose item the numbers read, what it counts as the state stands after the whole
   * fold (numbers/counting.ts, docs/credence.md#what-a-write-counts): its answer carries it. Reads only.
   */
  counts?(state: State, e: RecordEntry<Logged>, outcome: Outcome): Counted;
}

/** Who signed a write whose route names `signer`, as its `check` receives it. */
type ByOf<S extends Signer> = S extends 'operator' ? null : SignedBy;

/** A descriptor as written: its schema's static type types the entry its hooks receive. */
type Described<Origin, P, Logged, Outcome, By extends SignedBy | null = null> = Omit<
  EntryType<Logged, Outcome, By>,
  'origin' | 'schema'
> & {
  readonly origin: Origin;
  readonly schema: TSchema<P>;
};

/** A signed write's descriptor, its type, route and schema as written: the registry derives `WriteType` and `PayloadOf` from them. */
export type WriteEntryType<T extends string, R extends WriteRoute, P, Outcome> = EntryType<SignedWrite<P>, Outcome, ByOf<R['signer']>> & {
  readonly type: T;
  readonly origin: 'write';
  readonly route: R;
  readonly schema: TSchema<P>;
};

/** A signed write's descriptor: its hooks read `e.logged.payload` as its schema types it, its outcome from `apply`. */
export const entryType = <const T extends string, const R extends WriteRoute, P, Outcome>(
  d: Omit<Described<'write', P, SignedWrite<P>, Outcome, ByOf<R['signer']>>, 'type' | 'route'> & { readonly type: T; readonly route: R },
): WriteEntryType<T, R, P, Outcome> => Object.freeze(d);

/** The registration's descriptor: its hooks read `e.logged`, the body, as its schema types it. */
export const registrationType = <P, Outcome>(d: Described<'registration', P, P, Outcome>): EntryType<P, Outcome, null> => Object.freeze(d);

/** A service event's descriptor: logged by the service itself, so no schema, no route, never paused. */
export const serviceEvent = <E extends ServiceEvent, Outcome = void>(
  d: Omit<EntryType<SignedEvent<E>, Outcome, null>, 'origin' | 'schema' | 'route' | 'surface' | 'pausable'>,
): EntryType<SignedEvent<E>, Outcome, null> =>
  Object.freeze({ ...d, origin: 'event', schema: null, route: null, surface: null, pausable: false });

export type { SignedBy, SignedWrite, Static };
