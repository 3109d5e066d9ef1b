import { startPostgres } from './dist/test/helpers/postgres.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, cpSync } from 'node:fs';
import { createInterface } from 'node:readline';
const pgs = await startPostgres();
const db = await pgs.createDatabase();
const procs = [];
function serve(dir, port, id) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['bin/archive', 'serve', '--port', String(port), '--data', dir, '--store', db, '--reserve-mib', '1', '--node-id', id, '--lease', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    procs.push(p);
    createInterface({ input: p.stdout }).on('line', (l) => { console.log(`[${id}] ${l}`); const m = / at (http:\/\/\S+),/.exec(l); if (m) resolve({ p, url: m[1] }); });
    createInterface({ input: p.stderr }).on('line', (l) => console.log(`[${id}!] ${l}`));
    p.on('exit', (c) => reject(new Error('exit ' + c)));
  });
}
const d1 = mkdtempSync('/tmp/smoke/n1-');
const n1 = await serve(d1, 0, 'n1');
const d2 = mkdtempSync('/tmp/smoke/n2-'); cpSync(d1 + '/keys', d2 + '/keys', { recursive: true });
const d3 = mkdtempSync('/tmp/smoke/n3-'); cpSync(d1 + '/keys', d3 + '/keys', { recursive: true });
const [n2, n3] = await Promise.all([serve(d2, 0, 'n2'), serve(d3, 0, 'n3')]);
for (const n of [n1, n2, n3]) console.log(await (await fetch(n.url + '/v1/node')).json());
// register through a follower
const { register } = await import('./dist/test/helpers/agents.js').catch(() => ({}));
const reg = await fetch(n2.url + '/v2/agents/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
console.log('register via follower', reg.status, await reg.text(), reg.headers.get('archive-leader'));
const r2 = await fetch(n3.url + '/v1/log/sth', { headers: { 'min-seq': '0' } });
console.log('min-seq read', r2.status, await r2.text());
const r3 = await fetch(n3.url + '/v1/log/sth', { headers: { 'min-seq': '5' } });
console.log('min-seq 5', r3.status, await r3.text());
n1.p.kill('SIGKILL');
const t0 = Date.now();
for (;;) {
  const a = await (await fetch(n2.url + '/v1/node')).json();
  const b = await (await fetch(n3.url + '/v1/node')).json();
  if (a.role === 'leader' || b.role === 'leader') { console.log('new leader after', Date.now() - t0, 'ms', a, b); break; }
  await new Promise((r) => setTimeout(r, 100));
}
for (const p of procs) p.kill('SIGTERM');
await new Promise((r) => setTimeout(r, 1500));
await pgs.remove();
