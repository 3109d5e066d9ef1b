// verify/saved-state.ts: the verifier's saved replay is written a chunk at a time, with the very bytes of encodeState, and reads
// back to the state saved.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { leafHash, appendToRange, toHex, rootFromSubtrees } from 'tlog-engine';
import { encodeState, stateDigest } from '../../lib/record/fold/index.js';
import { codeId } from '../../lib/protocol/code-id.js';
import { loadReplay, REPLAY_FORMAT, saveReplay } from '../../verify/saved-state.js';
import { Fold } from '../helpers/fold.js';
import { tempDir } from '../helpers/tmp.js';

t.test('a saved replay holds the bytes encodeState gives, and loads back to the same state', async (t) => {
  const f = new Fold();
  f.agent('alice', 'op_archive');
  f.agent('bob', 'op_archive');
  const [claim] = f.paper('alice', [{ confidence: 0.7 }]);
  f.review('bob', claim!, 0.4);
  const range = appendToRange(
    [],
    Array.from({ length: f.state.size }, (_, i) => leafHash(new TextEncoder().encode(`entry ${i}`))),
  );
  const file = join(tempDir(t), 'verified.json.replay');
  const more = { genesis: undefined, cache: undefined };
  saveReplay(file, f.state, range, 'ab'.repeat(32), more);
  const extra = { range: range.map((s) => ({ level: s.level, hash: toHex(s.hash) })), lastEntryHash: 'ab'.repeat(32), ...more };
  const root = toHex(rootFromSubtrees(range.map((s) => s.hash)));
  t.ok(readFileSync(file).equals(encodeState(REPLAY_FORMAT, codeId(), f.state, root, extra)), 'the bytes of encodeState');
  const back = loadReplay(file);
  if (back === null || 'problem' in back) throw new Error(`not loaded: ${JSON.stringify(back)}`);
  t.equal(back.state.size, f.state.size);
  t.equal(stateDigest(back.state), stateDigest(f.state), 'the same state');
  t.equal(back.lastEntryHash, 'ab'.repeat(32));
});
