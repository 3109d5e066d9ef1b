// The /v1 reads: the constitution in force, the log (served by the engine's router, tlog-engine/http) and this node.
import { constitutionReads } from '../routes/constitution.js';
import { nodeReads } from '../routes/node.js';
import { arr, bool, hex64, int, nullable, obj, ref, str } from '../../lib/protocol/schemas/json.js';
import { limit, id, group, type Read } from './read.js';

const constitution = group(constitutionReads);
const node = group(nodeReads);

export const V1_READS: Read[] = [
  {
    path: '/v1/constitution',
    operationId: 'get_constitution',
    tool: { title: 'Read the constitution in force' },
    summary: 'The constitution in force: registration acknowledges its version and hash',
    returns: 'The version and hash of the constitution in force (registration acknowledges both) and its articles.',
    body: ref('Constitution'),
    serve: constitution('json'),
  },
  {
    path: '/v1/log/sth',
    operationId: 'get_log_head',
    tool: { title: 'Read the signed tree head' },
    summary: 'The signed tree head',
    returns: "The log's size, root hash and time, signed by the log key.",
    body: ref('SignedTreeHead'),
    serve: 'log',
  },
  {
    path: '/v1/log/key',
    operationId: 'get_log_key',
    summary: 'The log key and origin',
    returns: 'The log key and the origin it signs for.',
    body: obj({ key: str, origin: str }),
    serve: 'log',
  },
  {
    path: '/v1/node',
    operationId: 'get_node',
    returns:
      'Whether this node leads, follows or is alone, where the leader takes writes, the tree size it holds and how far it has ' +
      'applied the log.',
    summary: 'This node: whether it leads, where the leader takes writes, how far it holds the log and has applied it',
    body: obj({
      node: nullable(str),
      role: { enum: ['alone', 'leader', 'follower'] },
      leader: nullable(str),
      treeSize: int,
      applied: int,
    }),
    serve: node('node'),
  },
  {
    path: '/v1/log/checkpoint',
    operationId: 'get_log_checkpoint',
    summary: "The signed head as a C2SP checkpoint (signed note), with the witnesses' cosignatures when it has witnesses",
    returns: 'The checkpoint as a signed note.',
    body: 'text/plain',
    serve: 'log',
  },
  {
    path: '/v1/log/inclusion',
    operationId: 'get_log_inclusion',
    tool: { title: 'Prove an entry is in the log' },
    summary: 'An RFC 9162 inclusion proof',
    returns: 'The audit path of an entry in the tree of a size: {seq, treeSize, proof}.',
    params: [
      { name: 'seq', in: 'query', required: true, description: 'the entry', schema: int },
      { name: 'size', in: 'query', description: 'the tree size (default: the signed head)', schema: { type: 'integer', minimum: 1 } },
    ],
    body: obj({ seq: int, treeSize: int, proof: arr(hex64) }),
    statuses: [404],
    serve: 'log',
  },
  {
    path: '/v1/log/consistency',
    operationId: 'get_log_consistency',
    tool: { title: 'Prove the log only grew' },
    summary: 'An RFC 9162 consistency proof',
    returns: 'The proof that the tree of size second extends the tree of size first: {first, second, proof}.',
    params: [
      { name: 'first', in: 'query', required: true, description: 'the older tree size', schema: int },
      { name: 'second', in: 'query', required: true, description: 'the newer tree size', schema: { type: 'integer', minimum: 1 } },
    ],
    body: obj({ first: int, second: int, proof: arr(hex64) }),
    statuses: [404],
    serve: 'log',
  },
  {
    path: '/v1/log/audit',
    operationId: 'audit_log',
    summary: 'Re-walks the log; slow on purpose and rate-limited',
    returns: 'Whether every entry still chains and hashes to the signed root, and the first problem found.',
    body: obj({ intact: bool, problem: nullable({ type: 'object' }), treeSize: int }),
    statuses: [429],
    serve: 'log',
  },
  {
    path: '/v1/log/entries',
    operationId: 'get_log_entries',
    tool: { title: 'Read a page of log entries' },
    summary: 'A page of log entries',
    returns:
      'Entries from `from` in log order, each with its hashes and payload (text of items out of view as null), and `next`, the seq to ' +
      'ask for next (null at the end).',
    params: [
      { name: 'from', in: 'query', description: 'the first entry', schema: { type: 'integer', minimum: 0, default: 0 } },
      limit(1000, 100),
    ],
    body: obj({ treeSize: int, from: int, count: int, next: nullable(int), entries: arr(ref('LogEntry')) }),
    serve: 'log',
  },
  {
    path: '/v1/log/entries/{seq}',
    operationId: 'get_log_entry',
    tool: { title: 'Read a log entry with its proof' },
    summary: 'One log entry, its inclusion proof against the current signed head (served with it), and what it records',
    returns:
      'The entry as the log serves it, what it records (its type, the item it names, the agent), its inclusion proof and the signed ' +
      'head the proof is against.',
    params: [{ name: 'seq', in: 'path', required: true, description: 'the entry number', schema: int }],
    body: obj({
      seq: int,
      entry: ref('LogEntry'),
      records: obj({ type: str, subject: nullable(str), agent: nullable(str) }),
      inclusion: obj({ seq: int, treeSize: int, proof: arr(hex64) }),
      head: ref('SignedTreeHead'),
    }),
    statuses: [404],
    serve: 'log',
  },
  {
    path: '/v1/log/tile/{path}',
    route: '/v1/log/tile/*rest',
    params: [id('the tile, as C2SP tlog-tiles spells it', str, 'path')],
    operationId: 'get_log_tile',
    summary: 'A tile of the log (C2SP tlog-tiles): hashes of the tree, or an entry bundle',
    returns: 'The tile, as bytes.',
    body: 'application/octet-stream',
    serve: 'log',
    unlisted: 'the tiles are bytes, as C2SP tlog-tiles describes them (docs/log-format.md), read by tiles clients',
  },
  {
    path: '/v1/log/payloads/{path}',
    route: '/v1/log/payloads/*rest',
    params: [id('the entry bundle, as C2SP tlog-tiles spells its tile', str, 'path')],
    operationId: 'get_log_payloads',
    summary: 'The entries of an entry bundle as /v1/log/entries serves them, one JSON line each',
    returns: 'JSON lines.',
    body: 'application/x-ndjson',
    serve: 'log',
    unlisted: "a tiles client's companion of the entry bundles (docs/log-format.md), not a read for agents",
  },
];
