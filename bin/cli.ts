// The `archive` command line. Each command is a thin shell over lib/, log/ and api/.
import yargs, { type Argv, type CommandModule } from 'yargs';
import { hideBin } from 'yargs/helpers';

/**
 * The commands in the order the help lists them. Each module is imported only when needed, as together they load the
 * service, the verifier and the client (most of a start-up that tests and scripts pay on every run): a run that names its
 * command first loads that module alone; a run naming none (`archive --help`, a typo, an option first) loads them all.
 */
const COMMANDS: [name: string, load: () => Promise<Pick<CommandModule, 'command' | 'describe'>>][] = [
  ['serve', async () => (await import('./serve.js')).serveCommand],
  ['agent', async () => (await import('./agent.js')).agentCommand],
  ['pair', async () => (await import('./pair.js')).pairCommand],
  ['verify', async () => (await import('./verify.js')).verifyCommand],
  ['export', async () => (await import('./verify.js')).exportCommand],
  ['proof', async () => (await import('./verify.js')).proofCommand],
  ['tiles', async () => (await import('./verify.js')).tilesCommand],
  ['monitor', async () => (await import('./monitor.js')).monitorCommand],
  ['steward', async () => (await import('./steward.js')).stewardCommand],
  ['operator', async () => (await import('./operator.js')).operatorCommand],
  ['get', async () => (await import('./read.js')).getCommand],
  ['search', async () => (await import('./read.js')).searchCommand],
  ['log', async () => (await import('./read.js')).logCommand],
  ['heartbeat', async () => (await import('./read.js')).heartbeatCommand],
];

const ENV_PREFIX = 'ARCHIVE_';

/**
 * `.env('ARCHIVE')` reads every ARCHIVE_* variable for every command, so under `.strict()` a
 * variable meant for another command (ARCHIVE_HANDLE for `agent`, ARCHIVE_DATA for `serve`)
 * would fail this one as an unknown argument. Before validation, this drops what came only from
 * the environment and names no option of the command being run; an unknown option typed on
 * the command line still fails.
 */
function dropForeignEnv(argv: Record<string, unknown>, y: Argv): void {
  const known = (y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key;
  const typed = process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => a.slice(2).split('=')[0]!.replace(/^no-/, ''));
  for (const name of Object.keys(process.env)) {
    if (!name.startsWith(ENV_PREFIX)) continue;
    const kebab = name.slice(ENV_PREFIX.length).toLowerCase().replace(/_/g, '-');
    const camel = kebab.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (known[kebab] !== undefined || known[camel] !== undefined || typed.includes(kebab) || typed.includes(camel)) continue;
    delete argv[kebab];
    delete argv[camel];
  }
}

/** For a service that cannot be reached: where its address comes from. */
function unreachable(message: string): string {
  if (!/cannot reach the service/.test(message)) return '';
  const refused = /ECONNREFUSED/.test(message) ? 'nothing answers at that address' : 'the address did not answer';
  return `\n  ${refused}: is the service running there? Give its base URL with --url or the ARCHIVE_URL environment variable.`;
}

/**
 * The options whose value may begin with "-": a search's cursor is base64url, whose first
 * character can be "-", which yargs would read as options of its own. The word after such an
 * option is always its value.
 */
const VALUE_NEXT = new Set(['--cursor']);
function joinValues(words: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (VALUE_NEXT.has(word) && i + 1 < words.length) joined.push(`${word}=${words[++i]}`);
    else joined.push(word);
  }
  return joined;
}

const args = joinValues(hideBin(process.argv));
const named = COMMANDS.find(([name]) => name === args.find((a) => !a.startsWith('-')));
const commands = await Promise.all((named ? [named] : COMMANDS).map(([, load]) => load()));

await yargs(args)
  .scriptName('archive')
  .env('ARCHIVE')
  .middleware(dropForeignEnv as never, true)
  .command(commands as never)
  .demandCommand(1, 'name a command')
  .strict()
  .help()
  .fail((msg, err, y) => {
    // A usage mistake gets the help; a failure of the command itself gets one clear line.
    if (err) console.error(`archive: ${err.message}${unreachable(err.message)}`);
    else console.error(`${y.help()}\n\n${msg}`);
    process.exit(1);
  })
  .parseAsync();
