// GET /v2/credence's body made a chunk at a time while the service serves (credenceMade, lib/record/numbers/served.ts): each
// chunk made once, made again only when a score in it changed, and the body from those chunks is the body made afresh.
import t from 'tap';
import { applyEntry, replayEntries, type RecordEntry, type State } from '../../lib/record/fold/index.js';
import { credenceMade, credenceParts } from '../../lib/record/numbers/index.js';
import { fixtureText } from '../helpers/fixtures.js';
import { seededState } from '../helpers/fold.js';

const lines = fixtureText('record/fold.jsonl')
  .split('\n')
  .filter((l) => l !== '');
const { verified } = JSON.parse(lines[0]!) as { verified: string[] };
const log: RecordEntry[] = lines.slice(1).map((line) => {
  const r = JSON.parse(line) as { seq: number; ts: string; type: string; payload: string };
  return { seq: r.seq, ts: r.ts, type: r.type, logged: JSON.parse(r.payload), text: r.payload };
});
const body = (s: State) => Buffer.concat([...credenceParts(s).parts]).toString();

t.test('each chunk made once, again when a score in it changed, and the same body as one made afresh', async (t) => {
  const half = Math.floor(log.length / 2);
  const state = replayEntries(log.slice(0, half), seededState(verified));
  t.ok(state.numbers.index.refs.length > 0, 'the state holds claims');
  t.same([...credenceMade(state)], [0], 'the one chunk made');
  t.same([...credenceMade(state)], [], 'nothing left to make');
  t.equal(
    body(state),
    body(replayEntries(log.slice(0, half), seededState(verified))),
    'the body of the chunk made is the body made afresh',
  );
  for (const e of log.slice(half)) applyEntry(state, e);
  t.same([...credenceMade(state)], [0], 'made again once its scores changed');
  t.equal(body(state), body(replayEntries(log, seededState(verified))), 'the same body as the whole log replayed');
});

t.test('a chunk is made a slice of claims a step; one whose scores change meanwhile is made again when next asked', async (t) => {
  const half = Math.floor(log.length / 2);
  const state = replayEntries(log.slice(0, half), seededState(verified));
  const claims = state.numbers.index.refs.length;
  t.ok(claims >= 1, 'the state holds claims');
  t.same([...credenceMade(state, 1)], Array(claims + 1).fill(0), 'a step a claim, then one that keeps the chunk');
  t.equal(body(state), body(replayEntries(log.slice(0, half), seededState(verified))), 'the body made afresh');

  // Writes land between two steps of the chunk's making: what it keeps is of the version it began at.
  const again = replayEntries(log.slice(0, half), seededState(verified));
  const steps = credenceMade(again, 1);
  steps.next();
  for (const e of log.slice(half)) applyEntry(again, e);
  for (const _ of steps);
  t.same([...credenceMade(again)], [0], 'made again, its scores having changed while it was made');
  t.equal(body(again), body(replayEntries(log, seededState(verified))), 'the same body as the whole log replayed');
});

t.test('the parts are the body at the state they were asked at, however many writes land while they are read', async (t) => {
  const half = Math.floor(log.length / 2);
  const state = replayEntries(log.slice(0, half), seededState(verified));
  const { parts, bytes } = credenceParts(state);
  for (const e of log.slice(half)) applyEntry(state, e);
  const sent = Buffer.concat([...parts]);
  t.equal(sent.length, bytes, 'the length given is the length sent');
  t.equal(sent.toString(), body(replayEntries(log.slice(0, half), seededState(verified))), 'the body of the state before the writes');
  t.not(sent.toString(), body(state), 'not the body after the writes');
  t.equal(body(state), body(replayEntries(log, seededState(verified))), 'which is the whole log replayed');
});
