// The paper- and claim-heavy log of bench:readers (issue 16), also built by bench:ten-million:
// 2,000 agents of 1,000 operators a million entries, one operator (`lab-prolific`) with a tenth of
// the agents and a third of the papers; 240,000 papers of 3 claims a million (titles of 9 words,
// abstracts of 70, claims and tests of 12 to 14, words drawn from 30,000 made-up words with a Zipf
// distribution), 40,000 external claims, and reviews for the rest. Built through the record itself
// (no HTTP), with real signatures.
import { openDeployment } from '../lib/service/deployment.js';
import { generateKeyPair, signPayload } from '../lib/protocol/ed25519.js';
import { LiveRecord } from '../lib/service/live-record.js';
import { PROTOCOL } from '../lib/protocol/service-event.js';
import { FIELDS } from '../lib/protocol/schemas/index.js';
import { registration, review, type Key } from './build-log.js';
import { sponsorObject } from '../lib/protocol/sponsor.js';
import { prng } from './stats.js';

const OPERATORS = 1000;

/** The log's numbers of agents, of the prolific operator's agents, of papers and of external claims, for `entries` entries. */
export function readersShape(entries: number): { agents: number; prolific: number; papers: number; externals: number } {
  const scale = entries / 1_000_000;
  const agents = Math.max(10, Math.round(2000 * scale));
  // One in seven of papers and external claims is an external claim: 40,000 at a million entries.
  return { agents, prolific: Math.round(agents / 10), papers: Math.round(240_000 * scale), externals: Math.round(40_000 * scale) };
}

// Words with a Zipf distribution over 30,000 made-up words: a few very common, most rare.
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 've', 'so', 'pi', 'de', 'gra', 'tion', 'al', 'ing', 'er', 'ic', 'ous', 'ment'];
const VOCABULARY = Array.from({ length: 30_000 }, (_, i) => {
  let w = '';
  for (let k = i + 1; k > 0; k = Math.floor(k / SYLLABLES.length)) w += SYLLABLES[k % SYLLABLES.length];
  return w;
});
const ZIPF = (() => {
  const c = new Float64Array(VOCABULARY.length);
  let s = 0;
  for (let i = 0; i < c.length; i++) c[i] = s += 1 / (i + 1);
  return c;
})();

/** `n` words drawn from the vocabulary's Zipf distribution by `rnd`, joined by spaces. */
export function wordsFrom(rnd: () => number): (n: number) => string {
  const word = (): string => {
    const x = rnd() * ZIPF[ZIPF.length - 1]!;
    let lo = 0;
    for (let hi = ZIPF.length - 1; lo < hi;) {
      const m = (lo + hi) >> 1;
      if (ZIPF[m]! < x) lo = m + 1;
      else hi = m;
    }
    return VOCABULARY[lo]!;
  };
  return (n) => Array.from({ length: n }, word).join(' ');
}

const agentOf = (handle: string, k: Key) => ({ handle, publicKey: k.publicKey });
const signed = (k: Key, payload: object) => ({ payload, signature: signPayload(k.privateKey, payload) });

/**
 * Builds the log of `entries` entries in `dataDir`. With `hotEvery`, every `hotEvery`-th review
 * goes to the first paper's first claim (a hot claim, its reviews spread along the log).
 */
export async function buildReadersLog(dataDir: string, entries: number, opts: { hotEvery?: number } = {}): Promise<void> {
  const { agents: AGENTS, prolific: PROLIFIC, papers: PAPERS, externals: EXTERNALS } = readersShape(entries);
  const rnd = prng(16);
  const words = wordsFrom(rnd);
  // One millisecond an entry, ending when the build starts: a log of 10,000,000 entries spans 2.8 hours, all of it in the
  // past, so a write stamped with the time it is made lands after the log's last entry.
  let t = Date.now() - entries;
  const d = await openDeployment({ dataDir, clock: () => t });
  const record = await LiveRecord.open(d, () => t);
  const c = record.state.constitution;
  const keys = Array.from({ length: AGENTS }, () => generateKeyPair());
  const handle = (i: number) => `agent-${i}`;
  const wait: Promise<unknown>[] = [];
  const admit = (type: string, logged: object): Record<string, unknown> => {
    t++;
    const a = record.admit(type, logged);
    if ('already' in a) throw new Error(`${type} was answered as already so`);
    wait.push(a.committed);
    return a.outcome;
  };
  const flush = async () => {
    if (wait.length >= 5000) await Promise.all(wait.splice(0));
  };
  // The prolific operator's agents, and the second agent of the others, are sponsored by its first.
  for (let i = 0; i < AGENTS; i++) {
    const op = i < PROLIFIC ? 'lab-prolific' : `lab-${i % OPERATORS}`;
    const body: Record<string, unknown> = registration(handle(i), keys[i]!, op, c);
    const sponsor = record.state.agents.ofOperator(op)[0];
    if (sponsor !== undefined) {
      const k = keys[Number(sponsor.slice('agent-'.length))]!;
      body.sponsor = { handle: sponsor, signature: signPayload(k.privateKey, sponsorObject(handle(i), keys[i]!.publicKey)) };
    }
    admit('agent.register', body);
    await flush();
  }
  const claims: { ref: string; author: number }[] = [];
  const ts = () => new Date(t).toISOString();
  for (let n = 0; n < PAPERS + EXTERNALS; n++) {
    // A third of the papers are the prolific operator's.
    const i = n % 3 === 0 ? Math.floor(rnd() * PROLIFIC) : PROLIFIC + Math.floor(rnd() * (AGENTS - PROLIFIC));
    const k = keys[i]!;
    if (n % 7 === 6) {
      admit(
        'claim.external',
        signed(k, {
          protocol: PROTOCOL,
          type: 'claim.external',
          agent: agentOf(handle(i), k),
          ts: ts(),
          source: `doi:10.1234/bench.${n}`,
          quote: words(14),
          test: words(12),
        }),
      );
    } else {
      const made = admit(
        'paper',
        signed(k, {
          protocol: PROTOCOL,
          type: 'paper',
          agent: agentOf(handle(i), k),
          ts: ts(),
          title: words(9),
          abstract: words(70),
          field: FIELDS[n % FIELDS.length],
          claims: [0, 1, 2].map(() => ({ text: words(14), confidence: Math.round(rnd() * 100) / 100, test: words(12) })),
          builds_on: [],
        }),
      );
      claims.push({ ref: `${made.id as string}#C1`, author: i });
    }
    await flush();
  }
  for (let n = 0; record.state.size < entries; n++) {
    let i = Math.floor(rnd() * AGENTS);
    let claim = claims[Math.floor(rnd() * claims.length)]!;
    if (opts.hotEvery !== undefined && n % opts.hotEvery === 0) {
      claim = claims[0]!;
      // An author does not review its own claim.
      if (i === claim.author) i = (i + 1) % AGENTS;
    }
    admit('review', review(handle(i), keys[i]!, claim.ref, n, ts()));
    await flush();
  }
  await Promise.all(wait);
  await d.close();
}
