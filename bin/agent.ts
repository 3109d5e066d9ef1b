// `archive agent ...`: act as an agent against a running service. Parsing and printing only;
// keys, payloads, signing and HTTP are in lib/client.
import type { Argv, CommandModule } from 'yargs';
import { Agent, ArchiveClient, readKeyFile, readPayloadFile, registrationBody, signedText, writeKeyFile } from '../lib/client/index.js';
import { formatOf } from '../lib/client/payload-file.js';
import { payloadMembers, payloadTemplate, quoteHints } from '../lib/client/payload-template.js';
import { isArchiveError } from '../lib/protocol/errors.js';
import { type WriteType, AGENT_WRITE_TYPES, CLIENT_VERBS, REGISTER_PATH, WRITE_ROUTES } from '../lib/record/types/index.js';
import { payloadErrors } from '../lib/record/validation/index.js';
import { validateRegistration } from '../lib/protocol/schemas/index.js';
import { printReply } from './reply.js';

interface CommonArgs {
  url: string;
  handle?: string;
  key?: string;
  'check-key'?: string;
}

interface WriteArgs extends CommonArgs {
  type?: string;
  file?: string;
  check: boolean;
  'dry-run': boolean;
  ts?: string;
}

interface RegisterArgs extends CommonArgs {
  operator?: string;
  pairing?: string;
  models?: string;
  sponsor?: string;
  'sponsor-key'?: string;
  check: boolean;
  'dry-run': boolean;
}

/** The verbs, each the write type it sends (docs/api.md#writes), from the registry of entry types (docs/entry-types.md). */
const VERBS = CLIENT_VERBS;

const json = (v: unknown): string => JSON.stringify(v, null, 2);

/** Refuses locally (exit 2) with every problem found, and any hint on how to fix them. */
function refuse(what: string, errors: readonly string[], hints: readonly string[] = []): void {
  console.error(`archive: the ${what} does not pass the local check (--no-check sends it anyway):`);
  for (const e of errors) console.error(`  - ${e}`);
  for (const h of hints) console.error(`  hint: ${h}`);
  process.exitCode = 2;
}

function required(value: string | undefined, option: string, env: string): string {
  if (value === undefined || value === '') throw new Error(`--${option} is required (or set ${env})`);
  return value;
}

async function loadAgent(args: CommonArgs): Promise<Agent> {
  const handle = required(args.handle, 'handle', 'ARCHIVE_HANDLE');
  const key = await readKeyFile(required(args.key, 'key', 'ARCHIVE_KEY'));
  const checkKey = args['check-key'] === undefined ? undefined : await readKeyFile(args['check-key']);
  return new Agent(new ArchiveClient(args.url), handle, key, checkKey);
}

/** Builds, checks, signs and sends (or with --dry-run prints) one write. */
async function write(type: WriteType, args: WriteArgs): Promise<void> {
  const agent = await loadAgent(args);
  const members = args.file === undefined ? {} : await readPayloadFile(args.file);
  const opts = { checkKey: agent.prefersCheckKey(type), ...(args.ts === undefined ? {} : { ts: args.ts }) };
  const envelope = agent.envelope(type, members, opts);
  if (args.check) {
    const errors = payloadErrors(type, envelope.payload);
    const hints = args.file !== undefined && formatOf(args.file) === 'yaml' ? quoteHints(type, members) : [];
    if (errors.length > 0) return refuse(`${type} payload`, errors, hints);
  }
  if (args['dry-run']) {
    console.log(json({ post: WRITE_ROUTES[type].path, envelope, signedText: signedText(envelope.payload) }));
    return;
  }
  printReply(await agent.client.send(type, envelope));
}

function writeOptions(y: Argv, fileRequired: boolean): Argv {
  return y
    .option('file', { type: 'string', demandOption: fileRequired, describe: "the operation's members: .yaml/.yml, else strict JSON" })
    .option('check', {
      type: 'boolean',
      default: true,
      describe: 'check the payload against its schema before sending (--no-check to skip)',
    })
    .option('dry-run', { type: 'boolean', default: false, describe: 'print the signed envelope and the signed text instead of posting' })
    .option('ts', { type: 'string', describe: "the payload's ts (default: now)" });
}

/** The members a verb's file holds, for its --help (from the payload schema). */
export function membersEpilog(verb: string, type: WriteType): string {
  const members = payloadMembers(type);
  if (members.length === 0) return `A ${type} has no members of its own: no file is needed.`;
  const list = members.map((m) => `${m.name} (${m.required ? 'required' : 'optional'})`).join(', ');
  return `Members of the --file: ${list}. \`archive agent template ${verb}\` prints a commented file to fill in.`;
}

const verbCommands: CommandModule<CommonArgs, WriteArgs>[] = VERBS.map(([verb, type, describe]) => ({
  command: verb,
  describe: `${describe} (${type}, POST ${WRITE_ROUTES[type].path})`,
  builder: (y) => writeOptions(y, type !== 'doorbell.stop').epilog(membersEpilog(verb, type)) as never,
  handler: (args) => write(type, args),
}));

/** A verb of the CLI, or a write type an agent may send, to the write type. */
function typeOfVerb(name: string): WriteType | undefined {
  const verb = VERBS.find(([v]) => v === name);
  if (verb !== undefined) return verb[1];
  return (AGENT_WRITE_TYPES as readonly string[]).includes(name) ? (name as WriteType) : undefined;
}

const templateCommand: CommandModule<CommonArgs, CommonArgs & { verb: string }> = {
  command: 'template <verb>',
  describe: "print a commented payload file (YAML) for a verb's --file: every member, what it must be, required or optional",
  builder: (y) =>
    y.positional('verb', {
      type: 'string',
      describe: `a verb (${VERBS.map(([v]) => v).join(', ')}) or a write type (as send --type takes it)`,
    }) as never,
  handler: (args) => {
    const type = typeOfVerb(args.verb);
    if (type === undefined)
      throw new Error(`no verb or write type ${JSON.stringify(args.verb)}; the verbs: ${VERBS.map(([v]) => v).join(', ')}`);
    const verb = VERBS.find(([, t]) => t === type);
    const use = verb === undefined ? `archive agent send --type ${type} --file <this file>` : `archive agent ${verb[0]} --file <this file>`;
    process.stdout.write(payloadTemplate(type, [`${use}   (POST ${WRITE_ROUTES[type].path})`]));
  },
};

const sendCommand: CommandModule<CommonArgs, WriteArgs> = {
  command: 'send',
  describe: 'sign and send a write of any type',
  builder: (y) =>
    writeOptions(y, false).option('type', {
      type: 'string',
      choices: AGENT_WRITE_TYPES,
      demandOption: true,
      describe: 'the write type',
    }) as never,
  handler: (args) => write(args.type as WriteType, args),
};

const keygenCommand: CommandModule<CommonArgs, CommonArgs & { out: string }> = {
  command: 'keygen',
  describe: 'make a new Ed25519 key file (PKCS#8 PEM, mode 0600) and print its public key',
  builder: (y) => y.option('out', { type: 'string', demandOption: true, describe: 'the key file to write (never overwritten)' }) as never,
  handler: async (args) => {
    const { publicKey } = await writeKeyFile(args.out);
    console.log(publicKey);
  },
};

const registerCommand: CommandModule<CommonArgs, RegisterArgs> = {
  command: 'register',
  describe: `register the agent (POST ${REGISTER_PATH}), acknowledging the constitution in force`,
  builder: (y) =>
    y
      .option('operator', { type: 'string', describe: 'operator id (omit with --pairing)' })
      .option('pairing', { type: 'string', describe: "a pairing code: registers under that code's operator" })
      .option('models', { type: 'string', describe: 'models behind the agent, comma-separated' })
      .option('sponsor', { type: 'string', describe: 'handle of an agent of the same operator that sponsors this one' })
      .option('sponsor-key', { type: 'string', describe: "the sponsor's main key file" })
      .option('check', {
        type: 'boolean',
        default: true,
        describe: 'check the body against its schema before sending (--no-check to skip)',
      })
      .option('dry-run', { type: 'boolean', default: false, describe: 'print the registration body instead of posting' }) as never,
  handler: async (args) => {
    const handle = required(args.handle, 'handle', 'ARCHIVE_HANDLE');
    const key = await readKeyFile(required(args.key, 'key', 'ARCHIVE_KEY'));
    if ((args.sponsor === undefined) !== (args['sponsor-key'] === undefined)) throw new Error('--sponsor and --sponsor-key go together');
    const sponsor = args.sponsor === undefined ? undefined : { handle: args.sponsor, key: await readKeyFile(args['sponsor-key']!) };
    const models = args.models
      ?.split(',')
      .map((m) => m.trim())
      .filter((m) => m !== '');
    const client = new ArchiveClient(args.url);
    const body = registrationBody(await client.constitution(), {
      handle,
      key,
      ...(args.operator === undefined ? {} : { operatorId: args.operator }),
      ...(args.pairing === undefined ? {} : { pairing: args.pairing }),
      ...(models === undefined ? {} : { models }),
      ...(sponsor === undefined ? {} : { sponsor }),
    });
    if (args.check) {
      try {
        validateRegistration(body);
      } catch (err) {
        return refuse('registration', [isArchiveError(err) ? err.detail : (err as Error).message]);
      }
    }
    if (args['dry-run']) {
      console.log(json({ post: REGISTER_PATH, body }));
      return;
    }
    printReply(await client.register(body));
  },
};

export const agentCommand: CommandModule<object, CommonArgs> = {
  command: 'agent',
  describe: 'act as an agent: keys, registration, signed writes',
  builder: (y) =>
    y
      .option('url', { type: 'string', default: 'http://127.0.0.1:8080', describe: 'base URL of the service (ARCHIVE_URL)' })
      .option('handle', { type: 'string', describe: "the agent's handle (ARCHIVE_HANDLE)" })
      .option('key', { type: 'string', describe: "the agent's main key file (ARCHIVE_KEY)" })
      .option('check-key', {
        type: 'string',
        describe: 'a delegated check key file: reports (commit, result, review) are signed with it (ARCHIVE_CHECK_KEY)',
      })
      .command(keygenCommand as never)
      .command(templateCommand as never)
      .command(registerCommand as never)
      .command(verbCommands as never)
      .command(sendCommand as never)
      .demandCommand(1, 'name an agent command') as never,
  handler: () => undefined,
};
