// The browser side of the log page's checks, in WebCrypto alone: the signed tree head's signature by the log key the page names,
// then an entry's hash and its inclusion proof against that head (docs/api.md#the-explorer, docs/log-format.md#signed-tree-heads).
import { raw } from './html.js';
export const LOG_CHECK_SCRIPT = raw(`
const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
const bytes = (s) => Uint8Array.from(s.match(/../g).map((x) => parseInt(x, 16)));
const b64url = (s) => {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error('not base64url: ' + s.slice(0, 16));
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
};
const sha = async (...parts) => new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(parts.flatMap((p) => [...p]))));
async function rootFromProof(index, size, leaf, proof) {
  if (index >= size) throw new Error('index beyond the tree');
  let fn = index, sn = size - 1, r = leaf;
  for (const p of proof.map(bytes)) {
    if (sn === 0) throw new Error('proof too long');
    if (fn % 2 === 1 || fn === sn) {
      r = await sha(new Uint8Array([1]), p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
    } else r = await sha(new Uint8Array([1]), r, p);
    fn = Math.floor(fn / 2); sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw new Error('proof too short');
  return hex(r);
}
// The signed head, fetched now, and its signature verified with the log key: the signed bytes
// are the canonical JSON of {rootHash, timestamp, treeSize} (keys sorted, no spaces).
async function signedHead() {
  const key = document.getElementById('head').dataset.key;
  const sth = await (await fetch('/v1/log/sth')).json();
  if (!/^[0-9a-f]{64}$/.test(sth.rootHash) || !Number.isSafeInteger(sth.treeSize) || typeof sth.timestamp !== 'string')
    throw new Error('the signed head is malformed');
  const signed = '{"rootHash":' + JSON.stringify(sth.rootHash) + ',"timestamp":' + JSON.stringify(sth.timestamp) + ',"treeSize":' + \
JSON.stringify(sth.treeSize) + '}';
  const k = await crypto.subtle.importKey('spki', b64url(key), { name: 'Ed25519' }, false, ['verify']);
  let ok = false;
  try {
    ok = await crypto.subtle.verify({ name: 'Ed25519' }, k, b64url(sth.signature), new TextEncoder().encode(signed));
  } catch (err) {
    ok = false;
  }
  if (!ok) throw new Error('the signature of the head of size ' + sth.treeSize + ' does not verify with the log key');
  return sth;
}
// A result in words; a time among them is a <time>, kept on one line as the page's times are.
function show(out, ok, ...parts) {
  out.className = 'result ' + (ok ? 'ok' : 'bad');
  const time = (ts) => Object.assign(document.createElement('time'), { dateTime: ts, textContent: ts });
  out.replaceChildren(ok ? '' : 'FAILED: ', ...parts.map((p) => (typeof p === 'string' ? p : time(p.ts))));
}
async function checkHead() {
  const out = document.querySelector('#head .result');
  out.className = 'result';
  out.textContent = 'checking...';
  try {
    const sth = await signedHead();
    show(out, true, 'the head of size ' + sth.treeSize + ' (root ' + sth.rootHash.slice(0, 16) + '..., ', { ts: sth.timestamp }, ') is \
signed by the log key');
  } catch (err) {
    show(out, false, err.message);
  }
}
async function checkEntry(button) {
  const row = button.closest('tr'), out = row.querySelector('.result');
  out.className = 'result';
  out.textContent = 'checking...';
  try {
    const e = JSON.parse(row.dataset.entry);
    const leafInput = '{"payloadHash":"' + e.payloadHash + '","prevHash":"' + e.prevHash + '","seq":' + e.seq + ',"ts":"' + e.ts + \
'","type":"' + e.type + '"}';
    const leaf = await sha(new Uint8Array([0]), new TextEncoder().encode(leafInput));
    if (hex(leaf) !== e.entryHash) throw new Error('the entry hash does not recompute');
    const sth = await signedHead();
    const inc = await (await fetch('/v1/log/inclusion?seq=' + e.seq + '&size=' + sth.treeSize)).json();
    const root = await rootFromProof(e.seq, sth.treeSize, leaf, inc.proof);
    if (root !== sth.rootHash) throw new Error('the proof leads to ' + root.slice(0, 16) + '..., not the head');
    show(out, true, 'included in the signed head of size ' + sth.treeSize + ' (root ' + sth.rootHash.slice(0, 16) + '...), its signature \
verified with the log key');
  } catch (err) {
    show(out, false, err.message);
  }
}
document.getElementById('check-head').addEventListener('click', checkHead);
document.querySelectorAll('button.check').forEach((b) => b.addEventListener('click', () => checkEntry(b)));
`);
