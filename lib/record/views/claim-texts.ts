// A claim's statement and test are not kept in the state: they are read from the entries that carry them
// (docs/record.md#how-the-state-is-kept): a paper's `claims[i]` or an external claim's quote and test, and its
// amendment's test when the amendment changed it.
import type { Claim } from '../stores/claim-store.js';

/** What a claim's texts are read from: the payload of the write at `seq`, of type `type` (a `Logged`, items.ts, is one). */
export type ClaimEntries = (seq: number, type: 'paper' | 'claim.external' | 'claim.amend') => Promise<unknown>;

/** What the entries hold of a claim's texts (docs/payloads.md: Paper, ClaimExternal, ClaimAmend). */
type Written = { readonly claims: readonly { readonly text: string; readonly test: string }[] };
type Quoted = { readonly quote: string; readonly test: string };
type Amended = { readonly test?: string };

/** A claim's statement and test as it stands, and (amended) its kind and test before the amendment. */
export interface ClaimTexts {
  text: string;
  test: string;
  before: { kind: string; test: string } | null;
}

/** The statement and test claim `c` was made with, read from the entry that made it (its ref is `<id>#C<n>`, lib/protocol/ids.ts). */
export async function claimMade(c: Claim, read: ClaimEntries): Promise<{ text: string; test: string }> {
  if (c.external) {
    const p = (await read(c.seq, 'claim.external')) as Quoted;
    return { text: p.quote, test: p.test };
  }
  const p = (await read(c.seq, 'paper')) as Written;
  const made = p.claims[Number(c.ref.slice(c.ref.lastIndexOf('#C') + 2)) - 1]!;
  return { text: made.text, test: made.test };
}

/** Claim `c`'s texts as it stands: a claim is amended once, so the test before its amendment is the one it was made with. */
export async function claimTexts(c: Claim, read: ClaimEntries): Promise<ClaimTexts> {
  // Both entries asked for in one turn: a reader that batches (lib/service/logged.ts) reads them together.
  const [made, amended] = await Promise.all([
    claimMade(c, read),
    c.amendment === null ? null : (read(c.amendment.seq, 'claim.amend') as Promise<Amended>),
  ]);
  if (c.amendment === null || amended === null) return { text: made.text, test: made.test, before: null };
  return { text: made.text, test: amended.test ?? made.test, before: { kind: c.amendment.before.kind, test: made.test } };
}
