import t from 'tap';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDeployment } from '../../lib/service/deployment.js';
import { generateKeyPair, privateKeyToPem, publicKeyOf } from '../../lib/protocol/ed25519.js';
import { parseGenesis } from '../../lib/protocol/genesis.js';
import { loadDeploymentKeys } from '../../lib/service/keystore.js';
import { DEFAULT_RULES, SCREENING_FILE, loadScreening } from '../../lib/service/screening.js';
import { openLevelStore } from 'tlog-engine';
import { RECORD_FRAMING, RecordLog } from '../../lib/protocol/log-entry.js';
import { testSigner } from 'tlog-engine/testing';
import { tempDir } from '../helpers/tmp.js';
import { RESERVE_FILE } from '../../lib/service/storage.js';

t.test('first start makes both keys (mode 0600) and a genesis signed by the log key it names', async (t) => {
  const dataDir = tempDir(t);
  const d = await openDeployment({ dataDir, origin: 'example.org/log', operator: 'op_example' });
  for (const name of ['log.key', 'operator.key']) {
    t.equal(statSync(join(dataDir, 'keys', name)).mode & 0o777, 0o600, `${name} is 0600`);
  }
  const [genesis] = await d.log.entries(0, 1);
  t.equal(genesis!.type, 'log.genesis');
  const e = parseGenesis(genesis!.type, genesis!.payload).event;
  t.same(
    { logKey: e.logKey, operator: e.operator, origin: e.origin },
    { logKey: publicKeyOf(d.logKey), operator: 'op_example', origin: 'example.org/log' },
  );
  await d.close();
  const again = await openDeployment({ dataDir });
  t.same(
    { origin: again.origin, operator: again.operator, size: again.log.size },
    { origin: 'example.org/log', operator: 'op_example', size: 1 },
    'a restart reads origin and operator from the genesis',
  );
  await again.close();
});

t.test('a restart is refused when the keys or the settings do not match the genesis', async (t) => {
  const dataDir = tempDir(t);
  await (await openDeployment({ dataDir })).close();
  await t.rejects(openDeployment({ dataDir, origin: 'other.example/log' }), /this log's origin is archive\.local, not other\.example\/log/);
  await t.rejects(openDeployment({ dataDir, operator: 'op_other' }), /this log's operator is op_archive, not op_other/);

  const logKeyFile = join(dataDir, 'keys', 'log.key');
  writeFileSync(logKeyFile, privateKeyToPem(generateKeyPair().privateKey));
  await t.rejects(openDeployment({ dataDir }), /the log's genesis names log key \S+, but \S+log\.key is /);

  rmSync(logKeyFile);
  await t.rejects(openDeployment({ dataDir }), /log\.key is missing, and this data directory already holds a log/);
  t.notOk(existsSync(logKeyFile), 'no new key was made for an existing log');
});

t.test('a store whose entry 0 is not a genesis is refused', async (t) => {
  const dataDir = tempDir(t);
  await loadDeploymentKeys(dataDir, true);
  const { signer } = testSigner();
  const log = await RecordLog.open({ store: await openLevelStore(join(dataDir, 'db'), { framing: RECORD_FRAMING }), signer, origin: 'x' });
  await log.append('test.entry', '{"n":0}');
  await log.close();
  await t.rejects(openDeployment({ dataDir }), /does not hold an archive\/0\.2 log: entry 0 is not a genesis event/);
});

t.test('a first start cut short is finished: an empty key file or screening.json, a leftover temporary key', async (t) => {
  const dataDir = tempDir(t);
  // As an older version killed between creating keys/log.key and writing it would leave it,
  // with a temporary file beside operator.key, and the store not yet made.
  mkdirSync(join(dataDir, 'keys'), { mode: 0o700 });
  writeFileSync(join(dataDir, 'keys', 'log.key'), '');
  writeFileSync(join(dataDir, 'keys', 'operator.key.tmp'), '-----BEGIN PRIV');
  writeFileSync(join(dataDir, SCREENING_FILE), '');
  const d = await openDeployment({ dataDir });
  const [genesis] = await d.log.entries(0, 1);
  t.equal(
    parseGenesis(genesis!.type, genesis!.payload).event.logKey,
    d.logKeyString,
    'the genesis names the key made in place of the empty one',
  );
  t.same(readdirSync(join(dataDir, 'keys')).sort(), ['log.key', 'operator.key'], 'the temporary file is gone');
  t.same(
    loadScreening(dataDir).rules.map((r) => r.id),
    DEFAULT_RULES.map((r) => r.id),
    'the empty screening.json was written with the defaults',
  );
  await d.close();

  // Once a log names the key, a key file that holds no whole key is never replaced.
  writeFileSync(join(dataDir, 'keys', 'log.key'), '');
  await t.rejects(openDeployment({ dataDir }), /cannot read key \S+log\.key/);
});

t.test('a second open of a data directory in use is refused, and its reserve is kept for a full disk', async (t) => {
  const dataDir = tempDir(t);
  const first = await openDeployment({ dataDir });
  // The reserve as `archive serve` makes it (lib/service/storage.ts).
  writeFileSync(join(dataDir, RESERVE_FILE), Buffer.alloc(4096));
  await t.rejects(openDeployment({ dataDir }), /failed to open/, 'the store is locked by the first');
  t.ok(existsSync(join(dataDir, RESERVE_FILE)), 'the reserve is still there');
  t.equal((await first.log.entries(0, 1)).length, 1, 'the first still reads its log');
  await first.close();
  const again = await openDeployment({ dataDir });
  t.equal(again.log.size, 1, 'and the directory opens once the first has closed');
  await again.close();
});
