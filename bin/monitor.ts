// `archive monitor`: follows a log's signed heads and gossips them with peer monitors (verify/monitor.ts); with --listen and
// --witness-key it is also a witness. Its flags and exit statuses: docs/cli.md#archive-monitor.
import type { CommandModule } from 'yargs';
import {
  monitorRound,
  readState,
  serveGossip,
  writeState,
  type Finding,
  type MonitorState,
  type WitnessEndpoint,
} from '../verify/monitor.js';
import { addCheckpoint, loadOrCreateWitnessKey, witnessPolicy } from '../verify/witness.js';
import { parsePinnedKey } from '../verify/log-key.js';

interface MonitorArgs {
  url: string;
  key?: string;
  state: string;
  peer: string[];
  interval: number;
  once: boolean;
  listen?: number;
  host: string;
  json: boolean;
  'witness-key'?: string;
  'witness-name': string;
  witness: string[];
  'witness-quorum'?: number;
}

/** Prints a finding: problems loudly, on standard error, with their evidence. */
function print(f: Finding, json: boolean): void {
  if (json) {
    console.log(JSON.stringify({ at: new Date().toISOString(), ...f }));
    return;
  }
  if (f.kind === 'ok') console.log(`ok: ${f.detail}`);
  else if (f.kind === 'warning') console.error(`warning: ${f.detail}`);
  else if (f.kind === 'unwitnessed') console.error(`\n*** UNWITNESSED HEAD ***\n${f.detail}\ncheckpoint:\n${f.evidence}\n`);
  else
    console.error(
      `\n*** ${f.kind === 'split' ? 'SPLIT VIEW' : 'INCONSISTENT HEAD'} ` +
        `***\n${f.detail}\nevidence:\n${JSON.stringify(f.evidence, null, 2)}\n`,
    );
}

export const monitorCommand: CommandModule<object, MonitorArgs> = {
  command: 'monitor',
  describe: "follow a log's signed heads, check each extends the last, and compare them with peer monitors'",
  builder: (y) =>
    y
      .option('url', { type: 'string', default: 'http://127.0.0.1:8080', describe: 'base URL of the service to follow' })
      .option('state', { type: 'string', demandOption: true, describe: 'file keeping the pinned log key and the last verified head' })
      .option('key', {
        type: 'string',
        describe:
          'pin the log key (the key or the vkey, as GET /v1/log/key spells them); without it the key the service publishes on the first ' +
          'round is pinned',
      })
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
      .option('witness-key', {
        type: 'string',
        describe: 'with --listen: act as a witness (POST /add-checkpoint) with the Ed25519 key in this file, made if absent',
      })
      .option('witness-name', { type: 'string', default: 'archive-witness', describe: "the witness key's name (a schema-less URL)" })
      .option('witness', {
        type: 'string',
        array: true,
        default: [],
        describe: 'a trusted witness key (vkey); repeatable: heads must extend a checkpoint these cosigned',
      })
      .option('witness-quorum', { type: 'number', describe: 'how many of the --witness keys must cosign (default: all)' })
      .check((a) => {
        if (!(a.interval > 0)) throw new Error('--interval: expected a number of seconds above 0');
        if (a['witness-key'] !== undefined && a.listen === undefined) throw new Error('--witness-key goes with --listen');
        witnessPolicy(a.witness, a['witness-quorum']);
        if (a.key !== undefined) parsePinnedKey(a.key);
        return true;
      }) as never,
  handler: async (args) => {
    let current: MonitorState | null = readState(args.state);
    const pinned = args.key === undefined ? undefined : parsePinnedKey(args.key);
    const policy = witnessPolicy(args.witness, args['witness-quorum']);
    let witness: WitnessEndpoint | undefined;
    if (args['witness-key'] !== undefined) {
      const { witness: key, created } = loadOrCreateWitnessKey(args['witness-key'], args['witness-name']);
      console.error(`witness key${created ? ` made in ${args['witness-key']}` : ''}: ${key.vkey}`);
      witness = {
        // Checked and saved in one synchronous step: no other request runs in between.
        add: (body) => {
          const log = current === null ? null : { origin: current.origin, logKey: current.logKey };
          const answer = addCheckpoint(body, log, current?.witness ?? null, key);
          if (answer.record !== undefined && current !== null) {
            const next = { ...current, witness: answer.record };
            writeState(args.state, next);
            current = next;
          }
          return answer;
        },
        last: () => current?.witness ?? null,
      };
    }
    if (args.listen !== undefined) {
      const { url } = await serveGossip(args.listen, args.host, () => current, witness);
      console.error(`gossip: ${url}/head${witness === undefined ? '' : `, witness: ${url}/add-checkpoint`}`);
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
        const { state, findings } = await monitorRound({ url: args.url, peers: args.peer, policy, pinned }, current);
        for (const f of findings) {
          print(f, args.json);
          if (f.kind === 'split' || f.kind === 'inconsistent' || f.kind === 'unwitnessed') worst = f.kind;
        }
        if (state !== null) {
          // The witness's record is its own: a round never replaces it.
          const next = current?.witness === undefined ? state : { ...state, witness: current.witness };
          writeState(args.state, next);
          current = next;
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
