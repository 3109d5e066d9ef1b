// Lists and cursors: every list the API serves is a page with `next`, an opaque cursor authenticated with a key drawn from the log
// key and bound to the list's place, so that every node takes the others' cursors (docs/api.md#lists-and-cursors).
import { createHmac, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import { badRequest } from '../lib/protocol/errors.js';
import { intParam, type Query } from './params.js';
import { PAGE, type Mint } from '../lib/record/views/index.js';

/** The `limit` parameter of a list (400 naming it when it is not an integer within bounds). */
export const limitParam = (query: Query, page: { default: number; max: number } = PAGE): number =>
  intParam(query, 'limit', { min: 1, max: page.max, default: page.default });

const CURSOR = /^[A-Za-z0-9_-]{1,400}$/;
/** Bytes of the tag: 128 bits of HMAC-SHA256. */
const TAG = 16;

/**
 * Where a list is (the place its cursors are bound to): the same for a JSON read and for the
 * explorer's page of the same list, which takes the read's cursors.
 */
export const places = {
  papers: (f: { field?: string; agent?: string; operator?: string; status?: string }) =>
    JSON.stringify(['papers', f.field ?? null, f.agent ?? null, f.operator ?? null, f.status ?? null]),
  agent: (handle: string) => JSON.stringify(['agent', handle]),
  operator: (id: string) => JSON.stringify(['operator', id]),
  search: JSON.stringify(['search']),
  claimArguments: (claim: string) => JSON.stringify(['arguments', claim]),
  challenges: (all: boolean) => JSON.stringify(['challenges', all]),
  agents: JSON.stringify(['agents']),
  operators: JSON.stringify(['operators']),
  flags: JSON.stringify(['flags']),
  holds: JSON.stringify(['holds']),
  governance: JSON.stringify(['governance']),
  credence: JSON.stringify(['credence']),
};

/** The cursors of one deployment: made and read back under its key. */
export class Cursors {
  private constructor(private readonly key: Buffer) {}

  /** The cursors of the deployment whose log key is `logKey` (its own key, derived: HKDF-SHA256). */
  static of(logKey: KeyObject): Cursors {
    const secret = logKey.export({ format: 'der', type: 'pkcs8' });
    return new Cursors(Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'archive/0.2 list cursors', 32)));
  }

  private tag(place: string, body: Buffer): Buffer {
    return createHmac('sha256', this.key).update(place).update('\n').update(body).digest().subarray(0, TAG);
  }

  /** The mint of the cursors of the lists at `place` (base64url of the tag and the JSON of [list, ...at]). */
  mint(place: string): Mint {
    return (list, ...at) => {
      const body = Buffer.from(JSON.stringify([list, ...at]));
      return Buffer.concat([this.tag(place, body), body]).toString('base64url');
    };
  }

  /**
   * The `cursor` parameter of list `list` at `place`: where its page starts (the members after
   * the list's name), or null when absent. `shape` says whether those members are what this
   * list's cursors hold. A page of the explorer that pages several lists takes each list's
   * cursor by its own `name`.
   */
  read<T extends unknown[]>(query: Query, place: string, list: string, shape: (at: unknown[]) => at is T, name = 'cursor'): T | null {
    const raw = query.get(name);
    if (raw === undefined) return null;
    if (Array.isArray(raw)) throw badRequest(`${name}: given more than once`);
    const bad = () =>
      badRequest(
        `${name}: not a cursor of this list; pass the \`next\` of the previous page as it came, got ${JSON.stringify(raw.slice(0, 80))}`,
      );
    if (!CURSOR.test(raw)) throw bad();
    const bytes = Buffer.from(raw, 'base64url');
    // One spelling: the bytes must encode back to the very cursor (no stray trailing bits).
    if (bytes.length <= TAG || bytes.toString('base64url') !== raw) throw bad();
    const body = bytes.subarray(TAG);
    if (!timingSafeEqual(bytes.subarray(0, TAG), this.tag(place, body))) throw bad();
    const value = JSON.parse(body.toString('utf8')) as unknown;
    if (!Array.isArray(value) || value[0] !== list) throw bad();
    const at = value.slice(1);
    if (!shape(at)) throw bad();
    return at;
  }

  /** The seq a list's page starts from (its cursor, in parameter `name`), or null for the first page. */
  seq(query: Query, place: string, list: string, name = 'cursor'): number | null {
    return this.read(query, place, list, oneSeq, name)?.[0] ?? null;
  }
}

const isSeq = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/** A cursor that holds one seq: the lists in log order. */
export const oneSeq = (at: unknown[]): at is [number] => at.length === 1 && isSeq(at[0]);

/** A cursor of seqs and numbers. */
export const numbers =
  (n: number) =>
  (at: unknown[]): at is number[] =>
    at.length === n && at.every((x) => typeof x === 'number' && Number.isFinite(x));

export { isSeq };
