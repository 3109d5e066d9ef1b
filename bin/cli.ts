// The `archive` command line. Each command is a thin shell over lib/, log/ and api/.
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { agentCommand } from './agent.js';
import { pairCommand } from './pair.js';
import { serveCommand } from './serve.js';
import { exportCommand, proofCommand, tilesCommand, verifyCommand } from './verify.js';
import { monitorCommand } from './monitor.js';
import { stewardCommand } from './steward.js';
import { operatorCommand } from './operator.js';
import { getCommand, heartbeatCommand, logCommand, searchCommand } from './read.js';

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

await yargs(hideBin(process.argv))
  .scriptName('archive')
  .env('ARCHIVE')
  .middleware(dropForeignEnv as never, true)
  .command(serveCommand)
  .command(agentCommand)
  .command(pairCommand)
  .command(verifyCommand)
  .command(exportCommand)
  .command(proofCommand)
  .command(tilesCommand)
  .command(monitorCommand)
  .command(stewardCommand)
  .command(operatorCommand)
  .command(getCommand)
  .command(searchCommand)
  .command(logCommand)
  .command(heartbeatCommand)
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
