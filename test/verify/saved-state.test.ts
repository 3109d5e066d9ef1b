// verify/saved-state.ts: the verifier's saved replay is written a chunk at a time, with the very bytes of encodeState, and reads
// back to the state saved.
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { leafHash, appendToRange, toHex, rootFromSubtrees } from 'tlog-engine';
import { encodeState, stateDigest } from '../../lib/record/fold/index.js';
import { codeId } from '../../lib/protocol/code-id.js';
import { loadReplay, REPLAY_FORMAT, saveReplay } from '../../verify/saved-state.js';
import { Fold } from '../helpers/fold.js';
import { tempDir } from '../helpers/tmp.js';

/** A state of two agents, a paper and a review, and a leaf for each of its entries. */
function folded(): { f: Fold; leaves: Uint8Array[] } {
  const f = new Fold();
  f.agent('alice', 'op_archive');
  f.agent('bob', 'op_archive');
  const [claim] = f.paper('alice', [{ confidence: 0.7 }]);
  f.review('bob', claim!, 0.4);
  return { f, leaves: Array.from({ length: f.state.size }, (_, i) => leafHash(new TextEncoder().encode(`entry ${i}`))) };
}

t.test('a saved replay holds the bytes encodeState gives, and loads back to the same state', async (t) => {
  const { f, leaves } = folded();
  const range = appendToRange([], leaves);
  const file = join(tempDir(t), 'verified.json.replay');
  const more = { genesis: undefined, cache: undefined };
  saveReplay(file, f.state, range, 'ab'.repeat(32), more);
  const extra = { range: range.map((s) => ({ level: s.level, hash: toHex(s.hash) })), lastEntryHash: 'ab'.repeat(32), ...more };
  const root = toHex(rootFromSubtrees(range.map((s) => s.hash)));
  t.ok(readFileSync(file).equals(encodeState(REPLAY_FORMAT, codeId(), f.state, root, extra)), 'the bytes of encodeState');
  const back = await loadReplay(file);
  if (back === null || 'problem' in back) throw new Error(`not loaded: ${JSON.stringify(back)}`);
  t.equal(back.state.size, f.state.size);
  t.equal(stateDigest(back.state), stateDigest(f.state), 'the same state');
  t.equal(back.lastEntryHash, 'ab'.repeat(32));
});

t.test('a saved replay cut short, altered or of another tree is refused with its problem, hashed here or on a thread', async (t) => {
  const { f, leaves } = folded();
  const file = join(tempDir(t), 'verified.json.replay');
  saveReplay(file, f.state, appendToRange([], leaves), 'ab'.repeat(32));
  const good = readFileSync(file);
  for (const hashApart of [0, Infinity]) {
    const how = hashApart === 0 ? 'on a thread' : 'here';
    t.notOk('problem' in (await loadReplay(file, { hashApart }))!, `whole, it loads (hashed ${how})`);
    writeFileSync(file, good.subarray(0, good.length - 10));
    t.match(
      await loadReplay(file, { hashApart }),
      { problem: /holds \d+ bytes of state, its header says \d+ \(truncated\)/ },
      `cut short (${how})`,
    );
    const altered = Buffer.from(good);
    altered[altered.length - 20] = altered[altered.length - 20]! ^ 0xff;
    writeFileSync(file, altered);
    t.same(await loadReplay(file, { hashApart }), { problem: 'its state does not hash to its digest' }, `a byte altered (${how})`);
    writeFileSync(file, good);
  }
  // Subtrees that do not cover its size: refused before the body is read.
  saveReplay(file, f.state, appendToRange([], leaves.slice(1)), 'ab'.repeat(32));
  t.same(await loadReplay(file), { problem: `its subtrees do not cover ${f.state.size} entries` });
  writeFileSync(file, Buffer.concat([Buffer.from('not json\n'), good]));
  t.same(await loadReplay(file), { problem: 'its header is not JSON' });
  t.equal(await loadReplay(join(tempDir(t), 'none')), null, 'none saved');
});
