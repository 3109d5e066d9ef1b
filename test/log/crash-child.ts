// Child process for the crash test: opens the deployment in argv[2] (with its log in the
// PostgreSQL database argv[3], if given) and appends without end, printing "ack <seq>" for
// each acknowledged append, until it is killed.
import { openDeployment } from '../../lib/service/deployment.js';

const d = await openDeployment({ dataDir: process.argv[2]!, storeUrl: process.argv[3] });
process.stdout.write(`open ${d.log.size}\n`);
let n = 0;
for (;;) {
  const wave = Array.from({ length: 300 }, () =>
    d.log.append('test.entry', `{"n":${n++},"pad":"${'p'.repeat(100)}"}`).then((a) => process.stdout.write(`ack ${a.seq}\n`)),
  );
  await Promise.all(wave);
}
