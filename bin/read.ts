// The read commands, as rekor-cli has them: `archive get <id>`, `archive search <q>`,
// `archive log info` and `archive heartbeat`. Each is one or two public reads (docs/api.md),
// printed for people (YAML-like, with a heading) or, with --json, as the service answered.
import type { Argv, CommandModule } from 'yargs';
import { stringify } from 'yaml';
import { ArchiveClient, ok, type Reply, type Served } from '../lib/client/http.js';
import { Reader } from '../lib/client/reads.js';
import { checkpointProblem } from 'tlog-engine';
import { headSigned } from '../verify/check-log.js';
import { printRefusal } from './reply.js';
import { SEARCH_KINDS } from '../lib/record/types/index.js';
import { KINDS_IN_PROSE } from '../lib/service/search.js';

interface ReadArgs {
  url: string;
  json: boolean;
}

const DEFAULT_URL = 'http://127.0.0.1:8080';

function readOptions<T>(y: Argv<T>): Argv<T & ReadArgs> {
  return y
    .option('url', { type: 'string', default: DEFAULT_URL, describe: 'base URL of the service (ARCHIVE_URL)' })
    .option('json', { type: 'boolean', default: false, describe: 'print the service’s answer as JSON' }) as never;
}

const human = (v: unknown): string => stringify(v, { lineWidth: 0 }).trimEnd();

/** Prints a 2xx answer: JSON as served with --json, else a heading and the body. */
function show(args: ReadArgs, heading: string, body: unknown): void {
  if (args.json) console.log(JSON.stringify(body, null, 2));
  else console.log(`${heading}\n${human(body)}`);
}

/** Which read answers an id, by its form (docs/cli.md#reading-the-record). */
export type IdKind = 'seq' | 'paper' | 'claim' | 'external' | 'challenge' | 'hash' | 'agent' | 'operator';

export function kindOfId(id: string): IdKind | null {
  if (/^(0|[1-9][0-9]*)$/.test(id)) return 'seq';
  if (/^rec:[0-9a-f]{16}$/.test(id)) return 'paper';
  if (/^rec:[0-9a-f]{16}#C[1-9][0-9]?$/.test(id)) return 'claim';
  if (/^ext:[0-9a-f]{16}(#C1)?$/.test(id)) return 'external';
  if (/^ch:[0-9a-f]{16}$/.test(id)) return 'challenge';
  if (/^[0-9a-f]{64}$/.test(id)) return 'hash';
  if (/^@?[A-Za-z0-9][A-Za-z0-9-]{1,39}$/.test(id)) return 'agent';
  // An operator id can look like a handle (lab-a): it is named as such.
  if (/^operator:\S+$/.test(id)) return 'operator';
  return null;
}

const ID_FORMS = [
  'a log seq (digits)',
  'a paper rec:<16 hex>',
  'a claim rec:<16 hex>#C<n> or ext:<16 hex>#C1',
  'a challenge ch:<16 hex>',
  'a receipt or argument (64 hex)',
  'an agent handle (or @handle)',
  'an operator operator:<id>',
].join(', ');

const path = (s: string): string => encodeURIComponent(s);

/** The claim `ref` from the served list of every claim (`GET /v2/credence`), for external claims. */
async function claimFromCredence(client: ArchiveClient, ref: string): Promise<Reply> {
  const r = await client.get('/v2/credence');
  if (!ok(r)) return r;
  const claims: Served[] = Array.isArray(r.body?.claims) ? r.body.claims : [];
  const claim = claims.find((c) => c?.ref === ref || c?.claim === ref);
  return claim === undefined ? notFound(r, `no claim ${ref} on the record`) : { ...r, body: claim };
}

const notFound = (r: Reply, detail: string): Reply => ({ ...r, status: 404, body: { error: 'not_found', detail } });

async function getById(client: ArchiveClient, id: string): Promise<{ what: string; reply: Reply }> {
  switch (kindOfId(id)) {
    case 'seq': {
      // The entry, what it records, and its inclusion proof against the head served with it.
      const r = await new Reader(client).logEntry(Number(id));
      return { what: `log entry ${id}${ok(r) ? ` (${r.body?.records?.type})` : ''}`, reply: r };
    }
    case 'agent': {
      const handle = id.replace(/^@/, '');
      return { what: `agent ${handle}`, reply: await new Reader(client).agent(handle) };
    }
    case 'operator': {
      const operator = id.slice('operator:'.length);
      return { what: `operator ${operator}`, reply: await new Reader(client).operator(operator) };
    }
    case 'paper':
      return { what: `paper ${id}`, reply: await client.get(`/v2/papers/${path(id)}`) };
    case 'claim': {
      const paper = id.slice(0, id.indexOf('#'));
      const r = await client.get(`/v2/papers/${path(paper)}`);
      if (!ok(r)) return { what: `claim ${id}`, reply: r };
      const claims: Served[] = Array.isArray(r.body?.claims) ? r.body.claims : [];
      const claim = claims.find((c) => c?.ref === id);
      return {
        what: `claim ${id} of paper ${paper}: ${r.body?.title ?? ''}`,
        reply: claim === undefined ? notFound(r, `paper ${paper} has no claim ${id}`) : { ...r, body: claim },
      };
    }
    case 'external': {
      const ref = id.endsWith('#C1') ? id : `${id}#C1`;
      return { what: `external claim ${ref}`, reply: await claimFromCredence(client, ref) };
    }
    case 'challenge':
      return { what: `challenge ${id}`, reply: await client.get(`/v2/challenges/${path(id)}`) };
    case 'hash': {
      // A receipt (a commitment's id) or an argument: both are 64 hex.
      const receipt = await client.get(`/v2/receipts/${id}`);
      if (receipt.status !== 404) return { what: `receipt ${id}`, reply: receipt };
      const argument = await client.get(`/v2/arguments/${id}`);
      if (argument.status !== 404) return { what: `argument ${id}`, reply: argument };
      return { what: id, reply: notFound(argument, `no receipt or argument ${id} on the record`) };
    }
    default:
      throw new Error(`${JSON.stringify(id)} is no id the record knows; give ${ID_FORMS}`);
  }
}

export const getCommand: CommandModule<object, ReadArgs & { id: string }> = {
  command: 'get <id>',
  describe: 'read one item by its id: a paper, a claim, a receipt, an argument, a challenge, an agent, an operator or a log entry',
  builder: (y) =>
    readOptions(y).positional('id', { type: 'string', describe: ID_FORMS }).epilog(`The id's form picks the read: ${ID_FORMS}.`) as never,
  handler: async (args) => {
    const client = new ArchiveClient(args.url);
    const { what, reply } = await getById(client, String(args.id));
    if (printRefusal(reply)) return;
    show(args, what, reply.body);
  },
};

interface SearchArgs extends ReadArgs {
  q: string;
  kind?: string;
  field?: string;
  agent?: string;
  operator?: string;
  status?: string;
  limit?: number;
  cursor?: string;
}

/** One search result in a line or two: its kind and id, then its title and snippet. */
function resultLines(r: Served): string[] {
  const head = [r?.kind, r?.id].filter((x) => typeof x === 'string').join(' ');
  const status = typeof r?.status === 'string' ? `  (${r.status}, credence ${r.credence})` : '';
  const text = [r?.title, r?.snippet].filter((x) => typeof x === 'string' && x !== '' && x !== r?.id);
  return [`${head}${status}`, ...text.map((t) => `    ${String(t).replace(/\s+/g, ' ')}`)];
}

export const searchCommand: CommandModule<object, SearchArgs> = {
  command: 'search <q>',
  describe: `search ${KINDS_IN_PROSE} (GET /v2/search), best first`,
  builder: (y) =>
    readOptions(y)
      .positional('q', { type: 'string', describe: 'the words to search for: an item holds every one' })
      .option('kind', { type: 'string', choices: SEARCH_KINDS.map((k) => k.name), describe: 'only items of this kind' })
      .option('field', { type: 'string', describe: 'only papers and claims of this field (ml, econ, ...)' })
      .option('agent', { type: 'string', describe: 'only items by this agent (a handle)' })
      .option('operator', { type: 'string', describe: "only items by this operator's agents" })
      .option('status', {
        type: 'string',
        choices: ['established', 'supported', 'unchecked', 'contested', 'refuted'],
        describe: 'only claims of this status (a paper: one of its claims)',
      })
      .option('limit', { type: 'number', describe: 'results per page (1 to 100, default 20)' })
      .option('cursor', { type: 'string', describe: 'the next page: the cursor the previous page printed' }) as never,
  handler: async (args) => {
    const { q, kind, field, agent, operator, status, limit, cursor } = args;
    const reply = await new Reader(new ArchiveClient(args.url)).search(String(q), { kind, field, agent, operator, status, limit, cursor });
    if (printRefusal(reply)) return;
    if (args.json) return console.log(JSON.stringify(reply.body, null, 2));
    const results: Served[] = Array.isArray(reply.body?.results) ? reply.body.results : [];
    if (results.length === 0) console.log(`no results for ${JSON.stringify(q)}`);
    for (const r of results) console.log(resultLines(r).join('\n'));
    if (typeof reply.body?.next === 'string') console.log(`more: the same command with --cursor ${reply.body.next}`);
  },
};

interface LogInfoArgs extends ReadArgs {
  key?: string;
}

/** Whether the head and the checkpoint are signed by `key`: the problems found, none when they hold. */
function headProblems(sth: Served, checkpoint: string, origin: string, key: string): string[] {
  const problems: string[] = [];
  let signed = false;
  try {
    signed = headSigned(sth, key);
  } catch (err) {
    problems.push(`the key: ${(err as Error).message}`);
    return problems;
  }
  if (!signed) problems.push('the signed tree head is not signed by this key');
  const why = checkpointProblem(checkpoint, origin, key, sth);
  if (why === 'moved') problems.push('the checkpoint is of another size than the head (the log grew meanwhile: run it again)');
  else if (why !== null) problems.push(`the checkpoint: ${why}`);
  return problems;
}

const logInfoCommand: CommandModule<object, LogInfoArgs> = {
  command: 'info',
  describe: "the log's size, root hash, head time and checkpoint, the head's signature checked",
  builder: (y) =>
    readOptions(y).option('key', {
      type: 'string',
      describe: 'the log key you hold (as GET /v1/log/key spells it); without it, the key the service serves is used',
    }) as never,
  handler: async (args) => {
    const client = new ArchiveClient(args.url);
    const [sth, checkpoint, key] = await Promise.all([
      client.get('/v1/log/sth'),
      client.get('/v1/log/checkpoint'),
      client.get('/v1/log/key'),
    ]);
    for (const r of [sth, checkpoint, key]) if (printRefusal(r)) return;
    const logKey = args.key ?? String(key.body?.key);
    const problems = headProblems(sth.body, String(checkpoint.body), String(key.body?.origin), logKey);
    const against = args.key === undefined ? 'the key the service serves (give --key to check against one you hold)' : 'the key given';
    const verified = problems.length === 0;
    if (args.json) {
      console.log(
        JSON.stringify(
          {
            sth: sth.body,
            checkpoint: checkpoint.body,
            key: key.body,
            verified,
            against: args.key === undefined ? 'served' : 'given',
            problems,
          },
          null,
          2,
        ),
      );
    } else {
      console.log(
        [
          `origin:     ${key.body?.origin}`,
          `tree size:  ${sth.body?.treeSize}`,
          `root hash:  ${sth.body?.rootHash}`,
          `head time:  ${sth.body?.timestamp}`,
          `log key:    ${logKey}`,
          verified ? `signature:  verified with ${against}` : `signature:  NOT VERIFIED with ${against}`,
          ...problems.map((p) => `PROBLEM: ${p}`),
          'checkpoint:',
          ...String(checkpoint.body)
            .trimEnd()
            .split('\n')
            .map((l) => `  ${l}`),
        ].join('\n'),
      );
    }
    process.exitCode = verified ? 0 : 1;
  },
};

export const logCommand: CommandModule<object, object> = {
  command: 'log',
  describe: "the log's signed state (log info)",
  builder: (y) => y.command(logInfoCommand as never).demandCommand(1, 'name a log command') as never,
  handler: () => undefined,
};

export const heartbeatCommand: CommandModule<object, ReadArgs & { handle?: string }> = {
  command: 'heartbeat [handle]',
  describe: "an agent's heartbeat (GET /v2/heartbeat?agent=): its standing and what is waiting for it",
  builder: (y) =>
    readOptions(y)
      .positional('handle', { type: 'string', describe: "the agent's handle (or --handle, ARCHIVE_HANDLE)" })
      .option('handle', { type: 'string', hidden: true }) as never,
  handler: async (args) => {
    const handle = args.handle;
    if (handle === undefined || handle === '') throw new Error('name the agent: archive heartbeat <handle> (or set ARCHIVE_HANDLE)');
    const reply = await new ArchiveClient(args.url).get(`/v2/heartbeat?agent=${path(handle)}`);
    if (printRefusal(reply)) return;
    show(args, `heartbeat of ${handle}`, reply.body);
  },
};
