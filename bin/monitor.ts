// `archive monitor`: follows a log's signed heads and gossips them with peer monitors
// (verify/monitor.ts). With --once: one round, exit 0 when all holds, 3 on a split view or an
// inconsistent head (with both signed heads printed as evidence), 1 when the round failed.
import type { CommandModule } from 'yargs';
import { monitorRound, readState, serveGossip, writeState, type Finding, type MonitorState } from '../verify/monitor.js';

interface MonitorArgs {
  url: string;
  state: string;
  peer: string[];
  interval: number;
  once: boolean;
  listen?: number;
  host: string;
  json: boolean;
}

/** Prints a finding: problems loudly, on standard error, with their evidence. */
function print(f: Finding, json: boolean): void {
  if (json) {
    console.log(JSON.stringify({ at: new Date().toISOString(), ...f }));
    return;
  }
  if (f.kind === 'ok') console.log(`ok: ${f.detail}`);
  else if (f.kind === 'warning') console.error(`warning: ${f.detail}`);
  else
    console.error(
      `\n*** ${f.kind === 'split' ? 'SPLIT VIEW' : 'INCONSISTENT HEAD'} ***\n${f.detail}\nevidence:\n${JSON.stringify(f.evidence, null, 2)}\n`,
    );
}

export const monitorCommand: CommandModule<object, MonitorArgs> = {
  command: 'monitor',
  describe: "follow a log's signed heads, check each extends the last, and compare them with peer monitors'",
  builder: (y) =>
    y
      .option('url', { type: 'string', default: 'http://127.0.0.1:8080', describe: 'base URL of the service to follow' })
      .option('state', { type: 'string', demandOption: true, describe: 'file keeping the pinned log key and the last verified head' })
      .option('peer', {
        type: 'string',
        array: true,
        default: [],
        describe: 'base URL of a peer monitor (its --listen address); repeatable',
      })
      .option('interval', { type: 'number', default: 60, describe: 'seconds between rounds' })
      .option('once', { type: 'boolean', default: false, describe: 'one round, then exit (non-zero on a problem)' })
      .option('listen', { type: 'number', describe: 'serve GET /head (the latest verified head) on this port, for peers' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address for --listen' })
      .option('json', { type: 'boolean', default: false, describe: 'one JSON object a finding' })
      .check((a) => {
        if (!(a.interval > 0)) throw new Error('--interval: expected a number of seconds above 0');
        return true;
      }) as never,
  handler: async (args) => {
    let current: MonitorState | null = readState(args.state);
    if (args.listen !== undefined) {
      const { url } = await serveGossip(args.listen, args.host, () => current);
      console.error(`gossip: ${url}/head`);
    }
    let stop = false;
    let wake = () => {};
    const quit = () => {
      stop = true;
      wake();
    };
    process.once('SIGINT', quit);
    process.once('SIGTERM', quit);
    for (;;) {
      let worst: Finding['kind'] = 'ok';
      try {
        const { state, findings } = await monitorRound({ url: args.url, peers: args.peer }, current);
        for (const f of findings) {
          print(f, args.json);
          if (f.kind === 'split' || f.kind === 'inconsistent') worst = f.kind;
        }
        if (state !== null) {
          current = state;
          writeState(args.state, state);
        }
      } catch (err) {
        console.error(`round failed: ${(err as Error).message}`);
        if (args.once) {
          process.exitCode = 1;
          break;
        }
      }
      if (args.once) {
        if (worst !== 'ok') process.exitCode = 3;
        break;
      }
      if (stop) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, args.interval * 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (stop) break;
    }
    // The gossip server would keep the process alive.
    if (args.listen !== undefined) process.exit(process.exitCode ?? 0);
  },
};
