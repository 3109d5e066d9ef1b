// What a write counts: whether an item the numbers read counts on its claim as the state now stands, and the note naming the rule
// when it counts nothing or only in part (docs/credence.md#what-a-write-counts). Pure reads of the state, computed as the numbers
// compute; nothing here is kept in the state.
import { familiesOf } from '../../protocol/families.js';
import { tierOf, type Argument, type Claim, type Receipt, type State } from '../fold/state.js';
import { keptAggregate } from './kept.js';
import { countingReceipt, disputedNow, familiesOfItem, foundationsOf } from './score.js';
import { argumentStep, capLn3, KIND_RANK, TIER_WEIGHT, type ItemKind } from './rules.js';
import type { EvidenceAggregate } from './aggregate.js';

/** The rules a note names (docs/credence.md#what-a-write-counts). */
export const COUNTING_RULES = [
  'own-operator',
  'disowned',
  'no-result',
  'lapsed',
  'inconclusive',
  'disputed',
  'outranked',
  'replaced',
  'repeat',
  'replaces',
  'capped',
  'not-verified',
  'open',
  'dismissed',
  'qualifies',
  'shared-voice',
  'relied-on-already',
] as const;
export type CountingRule = (typeof COUNTING_RULES)[number];

/** The kinds of item a note names. */
export const NOTE_ITEM_KINDS = ['review', 'receipt', 'argument', 'check', 'paper'] as const;

/** The other item a note names: what counts instead, what the write replaced, whose voice it shares. */
export interface NoteItem {
  kind: (typeof NOTE_ITEM_KINDS)[number];
  /** Its id (a review's, a receipt's, an argument's, a paper's); a check has none: the entry names it. */
  id?: string;
  /** The entry that made it what it is: a review's, a result's, an argument's, a check's or a paper's. */
  seq: number;
}

export interface Note {
  rule: CountingRule;
  /** What the rule does to this item, and what to do about it, with the rule's place in the docs. */
  detail: string;
  item?: NoteItem;
}

/** Whether an item counts now, and the note when a rule keeps it from counting, or lets it count only in part. */
export interface Counting {
  counts: boolean;
  note?: Note;
}

/** What a write's answer adds: what its item counts; for a paper, what it adds to each claim it builds on. */
export type Counted = Counting | { foundations: (Counting & { ref: string })[] };

/** Where a rule is stated: a heading of docs/credence.md. */
const see = (anchor: string) => `(docs/credence.md#${anchor})`;

/** A note: its detail is the phrases given, in one sentence, ending with where the rule is stated. */
const note = (counts: boolean, rule: CountingRule, anchor: string, phrases: string[], item?: NoteItem): Counting => {
  const detail = `${phrases.join(' ')} ${see(anchor)}.`;
  return { counts, note: item === undefined ? { rule, detail } : { rule, detail, item } };
};
const COUNTS: Counting = Object.freeze({ counts: true });

// ---- receipts and reviews: the evidence items (docs/credence.md#evidence-items) ----

/** One operator's candidate to count on a claim: a counting receipt, or its latest review not disowned. */
interface Candidate {
  kind: ItemKind;
  id: string;
  /** The entry that made it an item: the review's, or the receipt's result. */
  seq: number;
  favours: boolean;
  families: readonly string[];
}

const ofReceipt = (r: Receipt): Candidate => ({
  kind: r.kind,
  id: r.id,
  seq: r.result!.seq,
  favours: r.result!.outcome === 'confirmed',
  families: familiesOfItem(r.models),
});

function ofReview(state: State, row: number): Candidate {
  const v = state.reviews;
  return {
    kind: 'review',
    id: v.keyAt(row),
    seq: v.seqAt(row),
    favours: v.forecastAt(row) >= 0.5,
    families: familiesOfItem(v.modelsAt(row)),
  };
}

const itemOf = (c: Candidate): NoteItem => ({ kind: c.kind === 'review' ? 'review' : 'receipt', id: c.id, seq: c.seq });
const same = (a: Candidate, b: Candidate) => a.kind === b.kind && a.id === b.id;
const stronger = (a: Candidate, b: Candidate) => KIND_RANK[a.kind] > KIND_RANK[b.kind] || (a.kind === b.kind && a.seq > b.seq);

/**
 * The item operator `op` counts by on `claim` (its strongest kind, of that kind its latest: as
 * countedItems chooses it), leaving out `except`; undefined when it has none.
 */
function countedBy(state: State, claim: Claim, op: string, except?: Candidate): Candidate | undefined {
  let best: Candidate | undefined;
  const offer = (c: Candidate) => {
    if (except !== undefined && same(c, except)) return;
    if (best === undefined || stronger(c, best)) best = c;
  };
  // Its receipts on the claim: walked along the shorter of the two lists that hold them.
  const byClaim = state.receiptsByClaim.get(claim.ref) ?? [];
  const byOperator = state.numbers.index.receiptsByOperator.get(op) ?? [];
  for (const id of byClaim.length <= byOperator.length ? byClaim : byOperator) {
    const r = state.receipts.get(id)!;
    if (r.operatorId === op && r.target === claim.ref && countingReceipt(state, r)) offer(ofReceipt(r));
  }
  // Its reviews of the claim, latest first (report-pairs.ts): the latest not disowned is its candidate.
  const pairs = state.numbers.tallies.pairs;
  const row = pairs.find(op, state.claims.ordinal(claim.ref));
  if (row >= 0) {
    for (const r of pairs.reviews(row)) {
      if (state.reviews.disownedAt(r) !== null) continue;
      const c = ofReview(state, r);
      if (except !== undefined && same(c, except)) continue;
      offer(c);
      break;
    }
  }
  return best;
}

const sameFamilies = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((f, i) => f === b[i]);

const what = (c: Candidate) => (c.kind === 'review' ? `review ${c.id}` : `${c.kind} receipt ${c.id}`);

/** The caps of docs/credence.md#sums-and-caps, in words. */
const CAPS = {
  verifiedReviews: "verified operators' reviews together are",
  reviews: 'all reviews together are',
  unverified: 'everything from operators that are not verified is',
} as const;

/**
 * The cap that absorbs the term of the item `op` counts by, when it moves neither credence nor
 * credenceVerified now (docs/credence.md#sums-and-caps: verified reviews, all reviews, and
 * everything from operators that are not verified, each within [-ln 3, +ln 3]); else null.
 */
export function cappedBy(agg: EvidenceAggregate, op: string): keyof typeof CAPS | null {
  const item = agg.itemOf(op);
  if (item === undefined || item.term === 0 || (item.kind !== 'review' && item.verified)) return null;
  // What credence reads of the sums, as score.ts caps them: V'rev, R and U.
  const capped = (vRev: number, uRev: number, uRec: number) => {
    const v = capLn3(vRev);
    const r = capLn3(v + uRev);
    return { v, r, u: capLn3(uRec + (r - v)) };
  };
  const sums = { vRev: agg.sum('vRev'), uRev: agg.sum('uRev'), uRec: agg.sum('uRec') };
  const now = capped(sums.vRev, sums.uRev, sums.uRec);
  const key = item.kind !== 'review' ? 'uRec' : item.verified ? 'vRev' : 'uRev';
  sums[key] -= item.term;
  const without = capped(sums.vRev, sums.uRev, sums.uRec);
  // credenceVerified reads V'rev, credence V'rev and U: neither moves.
  if (now.v !== without.v || now.u !== without.u) return null;
  if (item.kind === 'review' && item.verified) return 'verifiedReviews';
  return item.kind === 'review' && now.r === without.r ? 'reviews' : 'unverified';
}

/**
 * What item `x` of operator `op` on `claim` counts, once the rules that make it count 0 are
 * passed (the author's own operator, disowned, no conclusive result, disputed). With `answer`,
 * for the write that made it: what it replaced.
 */
function evidenceCounting(state: State, claim: Claim, op: string, x: Candidate, answer: boolean): Counting {
  const once = "each operator other than the author's counts once per claim,";
  const best = countedBy(state, claim, op)!;
  if (!same(best, x)) {
    // A confirmed rerun still makes its claim `reproduced`.
    const reproduces = x.kind === 'rerun' && x.favours;
    const rule = KIND_RANK[best.kind] > KIND_RANK[x.kind] ? 'outranked' : 'replaced';
    return note(
      reproduces,
      rule,
      reproduces ? 'dispute-use-reproduced-families' : 'evidence-items',
      [
        rule === 'outranked'
          ? `Operator ${op} counts on ${claim.ref} by its ${what(best)} (entry ${best.seq}), a stronger kind of item:`
          : `Operator ${op}'s later ${what(best)} (entry ${best.seq}) counts in its place:`,
        once,
        rule === 'outranked' ? 'by its strongest kind (replication, then rerun, then review)' : 'by the latest item of its strongest kind',
        ...(reproduces ? [`${see('evidence-items')}; it moves no credence, but a confirmed rerun still counts towards reproduced`] : []),
      ],
      itemOf(best),
    );
  }
  if (answer) {
    const before = countedBy(state, claim, op, x);
    if (before !== undefined) {
      const repeat = before.kind === x.kind && before.favours === x.favours && sameFamilies(before.families, x.families);
      return repeat
        ? note(
            true,
            'repeat',
            'evidence-items',
            [
              `It repeats operator ${op}'s ${what(before)} (entry ${before.seq}) of ${claim.ref}:`,
              'the same kind, pointing the same way, with the same model families.',
              `It counts in that one's place and adds nothing to it: ${once} by the latest item of its strongest kind`,
            ],
            itemOf(before),
          )
        : note(
            true,
            'replaces',
            'evidence-items',
            [
              `It replaces operator ${op}'s ${what(before)} (entry ${before.seq}) of ${claim.ref}, which no longer counts:`,
              once,
              'by the latest item of its strongest kind',
            ],
            itemOf(before),
          );
    }
  }
  const cap = cappedBy(keptAggregate(state, claim), op);
  if (cap !== null)
    return note(true, 'capped', 'sums-and-caps', [
      `It counts, but moves no credence now: ${CAPS[cap]} held within [-ln 3, +ln 3],`,
      `and on ${claim.ref} that sum is at the cap in its direction${cap === 'verifiedReviews' ? '; it still counts towards dispute' : ''}`,
    ]);
  const tier = tierOf(state, op);
  if (tier !== 'verified')
    return note(true, 'not-verified', 'operators-verified-by-the-record', [
      `It counts towards credence only, at weight ${TIER_WEIGHT[tier]} (operator ${op}'s tier is ${tier}),`,
      'within the cap of [-ln 3, +ln 3] on everything from operators that are not verified;',
      'not towards credenceVerified, dispute or status until the record verifies the operator',
    ]);
  return COUNTS;
}

const ownOperator = (claim: Claim, never: string): Counting =>
  note(false, 'own-operator', 'terms', [
    `${claim.ref} is a claim of operator ${claim.operatorId}, whose agent filed this:`,
    `the author operator's own ${never} on its claims; check claims of other operators (GET /v2/frontier)`,
  ]);

/** What the review at `row` counts on its claim now; with `answer`, for the write that filed it. */
export function reviewCounting(state: State, row: number, answer = false): Counting {
  const claim = state.claims.at(state.reviews.claimRowAt(row));
  const op = state.reviews.operatorAt(row);
  if (op === claim.operatorId) return ownOperator(claim, 'evidence never counts');
  const disowned = state.reviews.disownedAt(row);
  if (disowned !== null)
    return note(false, 'disowned', 'evidence-items', [`Disowned at entry ${disowned}: its key was revoked as compromised, so it counts 0`]);
  return evidenceCounting(state, claim, op, ofReview(state, row), answer);
}

/** What receipt `r` counts on its claim now; with `answer`, for the write that filed its result. */
export function receiptCounting(state: State, r: Receipt, answer = false): Counting {
  const claim = state.claims.get(r.target)!;
  if (r.operatorId === claim.operatorId) return ownOperator(claim, 'evidence never counts');
  if (r.disownedSeq !== null)
    return note(false, 'disowned', 'evidence-items', [
      `Disowned at entry ${r.disownedSeq}: a key that signed it was revoked as compromised, so it counts 0`,
    ]);
  if (r.result === null) {
    return r.stage === 'lapsed'
      ? note(false, 'lapsed', 'evidence-items', [`It lapsed at entry ${r.lapsedSeq}: no result came within 7 days, so it counts 0`])
      : note(false, 'no-result', 'evidence-items', [
          'A receipt counts once its result is filed:',
          `run the bundle under the seed and file check.result before ${new Date(r.deadline).toISOString()}`,
        ]);
  }
  if (r.result.outcome === 'inconclusive')
    return note(false, 'inconclusive', 'evidence-items', [
      'An inconclusive result counts 0 on its claim: only confirmed and failed results move a claim;',
      `a verified operator's cross-check that matches it still counts towards verifying operator ${r.operatorId} by the record`,
    ]);
  if (!countingReceipt(state, r) && disputedNow(state, r)) {
    const by = r.crossCheckedBy.find((c) => !c.match && state.verified.has(c.operatorId))!;
    return note(
      false,
      'disputed',
      'evidence-items',
      [`Disputed: the cross-check of a verified operator (${by.operatorId}, receipt ${by.receipt}) disagreed with it, so it counts 0`],
      { kind: 'receipt', id: by.receipt, seq: by.seq },
    );
  }
  return evidenceCounting(state, claim, r.operatorId, ofReceipt(r), answer);
}

// ---- arguments and their checks (docs/credence.md#sums-and-caps, #arguments-settlement) ----

/** What argument `a` counts on its claim now. */
export function argumentCounting(state: State, a: Argument): Counting {
  const claim = state.claims.get(a.claim)!;
  if (a.operatorId === claim.operatorId) return ownOperator(claim, 'arguments never count');
  if (a.status === 'open')
    return note(false, 'open', 'arguments-settlement', [
      'Not settled: an argument moves its claim only once upheld,',
      "when the checks of verified operators give one side at least two voices and three times the other's",
    ]);
  if (a.status === 'dismissed') {
    // A dismissed attack counts towards a conceptual claim's status (docs/credence.md#status).
    if (claim.kind === 'conceptual' && a.stance !== 'supports') return COUNTS;
    return note(false, 'dismissed', 'sums-and-caps', [`Dismissed at entry ${a.settledSeq}: a dismissed argument moves nothing`]);
  }
  // Upheld: a qualifying argument caps credence; of the others, one per operator counts, its strongest (the latest on a tie).
  if (a.stance === 'qualifies') return COUNTS;
  let strongest: Argument | undefined;
  for (const id of state.argumentsByClaim.get(claim.ref) ?? []) {
    const b = state.argumentsById.get(id)!;
    if (b.operatorId !== a.operatorId || b.status !== 'upheld') continue;
    if (
      strongest === undefined ||
      Math.abs(argumentStep(b.stance, b.grounds)) >= Math.abs(argumentStep(strongest.stance, strongest.grounds))
    )
      strongest = b;
  }
  if (strongest!.id === a.id) return COUNTS;
  return note(
    false,
    'outranked',
    'sums-and-caps',
    [
      `Operator ${a.operatorId}'s upheld argument ${strongest!.id} (entry ${strongest!.seq}) counts on ${claim.ref} in its place:`,
      'one argument per operator, its strongest, the latest on a tie',
    ],
    { kind: 'argument', id: strongest!.id, seq: strongest!.seq },
  );
}

/** The earlier check of the same operator that a check replaced (argument.check's answer). */
export interface ReplacedCheck {
  holds: boolean;
  models: string[];
  seq: number;
}

/** The voice a check of a verified operator gives: one per set of declared families, or its own (settlement.ts). */
const voiceOf = (operatorId: string, models: readonly string[]) => {
  const families = familiesOf(models);
  return families.length > 0 ? `families:${families.join(',')}` : `operator:${operatorId}`;
};

/** What the latest check of operator `op` on argument `a` counts now; `replaced`, for the write that filed it. */
export function checkCounting(state: State, a: Argument, op: string, replaced?: ReplacedCheck | null): Counting {
  const claim = state.claims.get(a.claim)!;
  const c = a.checks.get(op)!;
  if (op === claim.operatorId)
    return note(false, 'own-operator', 'arguments-settlement', [
      `${claim.ref} is a claim of operator ${op}, whose agent filed this check:`,
      "the author operator's checks carry no voice on its claims, and are not reports towards verification by the record",
    ]);
  if (!state.verified.has(op)) {
    if (a.stance === 'qualifies')
      return note(false, 'qualifies', 'operators-verified-by-the-record', [
        `No voice: operator ${op} is not verified,`,
        'and checks of qualifies arguments are not counted among its reports towards verification by the record',
      ]);
    return note(false, 'not-verified', 'arguments-settlement', [
      'No voice: only the checks of verified operators settle an argument;',
      ...(state.voided.has(op)
        ? [`operator ${op} lost its verification and is never verified by the record again`]
        : [
            `once ${claim.ref} is resolved it counts among operator ${op}'s reports towards verification by the record,`,
            'which gives its earlier checks a voice',
          ]),
    ]);
  }
  if (replaced !== undefined && replaced !== null) {
    const repeat = replaced.holds === c.holds && voiceOf(op, replaced.models) === voiceOf(op, c.models);
    return note(
      true,
      repeat ? 'repeat' : 'replaces',
      'arguments-settlement',
      [
        repeat
          ? `It repeats operator ${op}'s check at entry ${replaced.seq} (the same side, the same voice): it adds nothing to it;`
          : `It replaces operator ${op}'s check at entry ${replaced.seq}, which no longer counts:`,
        'the latest check of each operator counts',
      ],
      { kind: 'check', seq: replaced.seq },
    );
  }
  const voice = voiceOf(op, c.models);
  if (voice.startsWith('families:')) {
    for (const d of a.checks.values()) {
      if (d.operatorId === op || d.holds !== c.holds || d.operatorId === claim.operatorId || !state.verified.has(d.operatorId)) continue;
      if (voiceOf(d.operatorId, d.models) === voice)
        return note(
          true,
          'shared-voice',
          'arguments-settlement',
          [
            `It shares one voice with the check of operator ${d.operatorId} (entry ${d.seq}), of the same model families on the same side:`,
            'one voice per set of declared families',
          ],
          { kind: 'check', seq: d.seq },
        );
    }
  }
  return COUNTS;
}

// ---- papers: the use of the claims they build on (docs/credence.md#dispute-use-reproduced-families) ----

/** Whether paper `id` relies on claim `ref` (its claims' foundations include it). */
const reliesOn = (state: State, id: string, ref: string) =>
  state.papers.get(id)!.claims.some((c) => foundationsOf(state, state.claims.get(c)!).includes(ref));

/**
 * What paper `id` adds to the `use` of each claim it builds on (its claims' foundations, each
 * once): one per operator other than the claim's author's, at its tier weight.
 */
export function paperCounting(state: State, id: string): (Counting & { ref: string })[] {
  const paper = state.papers.get(id)!;
  const op = paper.operatorId;
  const refs = new Set<string>();
  for (const ref of paper.claims) for (const f of foundationsOf(state, state.claims.get(ref)!)) refs.add(f);
  const ix = state.numbers.index;
  const anchor = 'dispute-use-reproduced-families';
  return [...refs].map((ref) => {
    if (state.claims.get(ref)!.operatorId === op)
      return {
        ref,
        ...note(false, 'own-operator', anchor, [
          `${ref} is a claim of operator ${op}, this paper's own: its own papers never add to a claim's use`,
        ]),
      };
    // An earlier paper of the same operator relying on it: walked along the shorter list that holds it.
    const mine = Array.from(ix.papersByOperator.get(op) ?? [], (row) => state.papers.keyAt(row)).filter((p) => p !== id);
    const relying = ix.relying.get(ref) ?? [];
    const earlier =
      mine.length <= relying.length
        ? mine.find((p) => reliesOn(state, p, ref))
        : relying.find((p) => p !== id && state.papers.get(p)!.operatorId === op);
    if (earlier !== undefined) {
      const seq = state.papers.get(earlier)!.seq;
      return {
        ref,
        ...note(
          false,
          'relied-on-already',
          anchor,
          [
            `Operator ${op} relies on ${ref} already, by paper ${earlier} (entry ${seq}):`,
            "use counts each operator other than the author's once per claim",
          ],
          { kind: 'paper', id: earlier, seq },
        ),
      };
    }
    const tier = tierOf(state, op);
    if (tier !== 'verified')
      return {
        ref,
        ...note(true, 'not-verified', anchor, [
          `It adds ${TIER_WEIGHT[tier]} to the use of ${ref}, operator ${op}'s tier weight (its tier is ${tier});`,
          "a verified operator's paper adds 1",
        ]),
      };
    return { ref, counts: true };
  });
}
