// The record's own window and index of signed bytes (docs/record.md, "Replays and last-writer-wins"),
// driven by hand: the service's clock check never lets these through, so only the fold shows them.
// A payload ts more than the window from its entry's ts is refused; the index keeps 20 minutes of
// log time and drops the rest, oldest first, and a copy older than that is refused by the window.
import t from 'tap';
import { Fold } from '../helpers/fold.js';
import { SeenIndex } from '../../lib/record/stores/index.js';

const MIN = 60 * 1000;

t.test("a signed write's ts must lie within the window of its entry's ts", async (t) => {
  const f = new Fold();
  f.agent('alice', 'lab-a');
  const signedAt = (type: string, members: Record<string, unknown>, ms: number) => {
    const e = f.signed('alice', type, members);
    return { ...e, payload: { ...e.payload, ts: new Date(f.now + ms).toISOString() } };
  };
  const at = (ms: number) => signedAt('doorbell.set', { kind: 'poll' }, ms);
  t.match(f.refusal('doorbell.set', at(-5 * MIN - 1)), {
    error: 'bad_request',
    detail: /^payload\.ts: .* 5\.0 minutes before the entry's ts .*; the limit is 5 minutes$/,
  });
  t.match(f.refusal('doorbell.set', at(5 * MIN + 1)), { error: 'bad_request', detail: /5\.0 minutes after the entry's ts/ });
  t.equal(f.refusal('doorbell.set', at(-5 * MIN)), null, 'exactly the window passes');
  const flag = (ms: number) => signedAt('item.flag', { subject: 'rec:0000000000000000', reason: 'A reason of ten.' }, ms);
  t.match(
    f.refusal('item.flag', flag(-10 * MIN - 1)),
    { error: 'bad_request', detail: /the limit is 10 minutes$/ },
    'other types: 10 minutes',
  );
  t.match(
    f.refusal('item.flag', flag(-10 * MIN)),
    { error: 'forbidden' },
    "exactly 10 minutes passes the window (and meets the type's own check)",
  );
});

t.test('the index keeps 20 minutes of log time; a copy after that is refused by the window', async (t) => {
  const f = new Fold();
  f.agent('alice', 'lab-a');
  f.agent('bob', 'lab-b');
  const ring = f.signed('alice', 'doorbell.set', { kind: 'poll' });
  const seq = f.state.size;
  f.admit('doorbell.set', ring);
  t.same(
    [...f.state.seen.values()].map((s) => s.seq),
    [seq],
    'the one signed write so far',
  );
  t.match(f.refusal('doorbell.set', ring), { error: 'conflict', detail: new RegExp(`on the log already at entry ${seq};`) });
  f.now += 20 * MIN - 1000; // Fold moved on a second after the ring: the next entry is exactly 20 minutes after it.
  f.admit('doorbell.set', f.signed('bob', 'doorbell.set', { kind: 'poll' }));
  t.ok(
    [...f.state.seen.values()].some((s) => s.seq === seq),
    'kept at exactly 20 minutes',
  );
  f.now += 2000;
  f.admit('doorbell.stop', f.signed('bob', 'doorbell.stop', {}));
  t.notOk(
    [...f.state.seen.values()].some((s) => s.seq <= seq),
    'dropped after 20 minutes, with everything older',
  );
  t.equal(f.state.seen.size, 2, 'what is left: the last 20 minutes');
  t.match(f.refusal('doorbell.set', ring), { error: 'bad_request', detail: /^payload\.ts: / }, 'the copy: refused by the window');
});

t.test('the index stays the last 20 minutes over a long run, and a state given a copy of it prunes the same', async (t) => {
  const f = new Fold();
  f.agent('alice', 'lab-a');
  for (let i = 0; i < 3000; i++) {
    f.now += 7 * 1000; // about 171 writes in 20 minutes
    f.admit('doorbell.set', f.signed('alice', 'doorbell.set', { kind: 'poll' }));
    // Half way, the state's index is a copy restored from its bytes, as a snapshot restores one.
    if (i === 1500) f.state.seen = SeenIndex.unpack(f.state.seen.pack());
  }
  const last = Date.parse(f.log.at(-1)!.ts);
  const kept = f.log.filter((e) => e.type === 'doorbell.set' && Date.parse(e.ts) >= last - 20 * MIN).map((e) => e.seq);
  t.same(
    [...f.state.seen.values()].map((s) => s.seq),
    kept,
    'exactly the writes of the last 20 minutes, in log order',
  );
  t.ok(kept.length > 150 && kept.length < 200, `${kept.length} writes in the window`);
});
