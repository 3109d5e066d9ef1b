// `archive serve`: runs the service on an embedded LevelDB in the data directory, or on a
// PostgreSQL database (--store postgres://…) with the keys still in the data directory. On
// PostgreSQL any number of nodes may share the database: one leads, the others follow and
// forward writes to it (lib/service/cluster.ts, docs/deploy.md).
import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { LiveRecord } from '../lib/service/live-record.js';
import { snapshotFile } from '../lib/service/snapshot.js';
import { storeSnapshots } from '../lib/service/snapshot-place.js';
import { DEFAULT_LEASE_MS, RecordCluster, isSharedDb } from '../lib/service/cluster.js';
import { stateDigest } from '../lib/record/fold/index.js';
import { startServer } from '../api/server.js';
import { Readers } from '../lib/service/readers.js';
import { openDeployment, withoutPassword } from '../lib/service/deployment.js';
import { DoorbellRinger } from '../lib/service/doorbell/ringer.js';
import { REGISTER_LIMIT } from '../api/app.js';
import { IPV6_PREFIX, trustedProxies } from '../api/client-address.js';
import { StorageWatch } from '../lib/service/storage.js';
import { writeStaticTiles } from '../verify/tiles.js';
import { cosignedIn, parseWitnessFlag, Witnesses } from '../lib/service/witnesses.js';

interface ServeArgs {
  port: number;
  host: string;
  data: string;
  store?: string;
  origin?: string;
  operator?: string;
  'audit-per-minute': number;
  'register-limit': number;
  'register-window': number;
  'trust-proxy': string[];
  'ipv6-prefix': number;
  'doorbell-allow-loopback': boolean;
  'reserve-mib': number;
  'min-free-mib': number;
  'tiles-dir'?: string;
  'tiles-every': number;
  snapshots: boolean;
  'snapshot-every': number;
  witness: string[];
  'node-id'?: string;
  'advertise-url'?: string;
  lease: number;
  poll: number;
  'min-seq-wait': number;
}

/** A number of seconds above 0 from flag `name`, in ms. */
function seconds(name: string, value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new Error(`--${name}: expected a number of seconds above 0, got ${value}`);
  return Math.round(value * 1000);
}

export const serveCommand: CommandModule<object, ServeArgs> = {
  command: 'serve',
  describe: 'run the service',
  builder: (y) =>
    y
      .option('port', { type: 'number', default: 8080, describe: 'TCP port to listen on (0: any free port)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on (0.0.0.0 for every interface)' })
      .option('data', { type: 'string', default: './data', describe: 'data directory: LevelDB store and keys' })
      .option('store', {
        type: 'string',
        describe: 'the log in a PostgreSQL database, postgres://user@host/db (default: LevelDB under --data)',
      })
      .option('origin', { type: 'string', describe: "the log's origin, fixed at genesis (new logs: archive.local)" })
      .option('operator', { type: 'string', describe: "the deployment's operator id, fixed at genesis (new logs: op_archive)" })
      .option('audit-per-minute', { type: 'number', default: 2, describe: 'audits allowed per client per minute' })
      .option('register-limit', {
        type: 'number',
        default: REGISTER_LIMIT.max,
        describe: 'registrations allowed per client address per window (429 with Retry-After beyond)',
      })
      .option('register-window', { type: 'number', default: REGISTER_LIMIT.windowSeconds, describe: 'the registration window, in seconds' })
      .option('trust-proxy', {
        type: 'string',
        array: true,
        default: [],
        describe: 'proxies (addresses or CIDR prefixes, comma-separated or repeated) whose X-Forwarded-For names the client',
      })
      .option('ipv6-prefix', {
        type: 'number',
        default: IPV6_PREFIX,
        describe: 'the IPv6 prefix length the limits per client address count a client by (128: each address)',
      })
      .option('doorbell-allow-loopback', {
        type: 'boolean',
        default: false,
        describe: 'let doorbells ring loopback addresses (tests only)',
      })
      .option('reserve-mib', {
        type: 'number',
        default: 80,
        describe: 'space kept in <data>/reserve, given up so the store opens on a full disk',
      })
      .option('min-free-mib', {
        type: 'number',
        default: 64,
        describe: 'free space (beyond the reserve) below which writes stay off',
      })
      .option('tiles-dir', {
        type: 'string',
        describe: 'keep a static C2SP tlog-tiles copy of the log in this directory, as archive tiles writes it',
      })
      .option('tiles-every', {
        type: 'number',
        default: 10,
        describe: 'with --tiles-dir: seconds between updates of the copy (when the log grew)',
      })
      .option('snapshots', {
        type: 'boolean',
        default: true,
        describe: 'start from the snapshot of the state under --data when it holds, and write it (--no-snapshots: always replay)',
      })
      .option('snapshot-every', {
        type: 'number',
        default: 100_000,
        describe:
          'with snapshots: also write one every N entries while serving (0: only at a clean shutdown); serving pauses while the state ' +
          'is copied (about 0.15 to 0.25 s at 1,000,000 entries)',
      })
      .option('witness', {
        type: 'string',
        array: true,
        default: [],
        describe: 'a witness that cosigns the checkpoints, as URL=VKEY (its add-checkpoint prefix and key); repeatable',
      })
      .option('node-id', {
        type: 'string',
        describe: 'with --store: this node among those sharing the database, unique (default: a new random id at each start)',
      })
      .option('advertise-url', {
        type: 'string',
        describe: 'with --store: the URL the other nodes forward writes to while this node leads (default: the address it listens on)',
      })
      .option('lease', {
        type: 'number',
        default: DEFAULT_LEASE_MS / 1000,
        describe:
          'with --store: seconds the sequencer lease lasts unless renewed; a follower takes it over within this much after the leader dies',
      })
      .option('poll', {
        type: 'number',
        default: 1,
        describe: 'with --store: seconds between reads of the head by a follower when no notification comes',
      })
      .option('min-seq-wait', {
        type: 'number',
        default: 5,
        describe: 'longest wait, in seconds, of a read carrying Min-Seq for that entry (then 503)',
      }) as never,
  handler: async (args) => {
    const perMinute = args['audit-per-minute'];
    if (!Number.isInteger(perMinute) || perMinute < 1)
      throw new Error(`--audit-per-minute: expected a whole number at least 1, got ${perMinute}`);
    for (const flag of ['register-limit', 'register-window'] as const) {
      if (!Number.isInteger(args[flag]) || args[flag] < 1)
        throw new Error(`--${flag}: expected a whole number at least 1, got ${args[flag]}`);
    }
    const ipv6Prefix = args['ipv6-prefix'];
    if (!Number.isInteger(ipv6Prefix) || ipv6Prefix < 1 || ipv6Prefix > 128)
      throw new Error(`--ipv6-prefix: expected a prefix length, a whole number 1 to 128, got ${ipv6Prefix}`);
    const trustProxy = args['trust-proxy']
      .flatMap((s) => String(s).split(','))
      .map((s) => s.trim())
      .filter((s) => s !== '');
    trustedProxies(trustProxy); // a bad entry stops the start, naming it
    if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535)
      throw new Error(`--port: expected 0 to 65535, got ${args.port}`);
    for (const k of ['reserve-mib', 'min-free-mib'] as const) {
      if (!(args[k] >= 0)) throw new Error(`--${k}: expected a number of MiB, at least 0, got ${args[k]}`);
    }
    const witnessConfig = args.witness.map((w) => parseWitnessFlag(String(w)));
    const leaseMs = seconds('lease', args.lease);
    const pollMs = seconds('poll', args.poll);
    const minSeqWaitMs = seconds('min-seq-wait', args['min-seq-wait']);
    if (args['node-id'] !== undefined && !/^[\x21-\x7e]{1,100}$/.test(args['node-id']))
      throw new Error(`--node-id: expected 1 to 100 printable characters without spaces, got ${JSON.stringify(args['node-id'])}`);
    if (args['advertise-url'] !== undefined && !/^https?:\/\/[^\s/]+$/.test(args['advertise-url']))
      throw new Error(`--advertise-url: expected http(s)://host[:port] without a path, got ${JSON.stringify(args['advertise-url'])}`);
    const dataDir = resolve(args.data);
    const nodeId = args['node-id'] ?? `node-${Math.random().toString(16).slice(2, 14)}`;
    const d = await openDeployment({
      dataDir,
      storeUrl: args.store,
      origin: args.origin,
      operator: args.operator,
      node: { node: nodeId, url: '', leaseMs },
    });
    const shared = isSharedDb(d.store) ? d.store : null;
    // A store that cannot write at start is opened for reads, with writes off (lib/service/storage.ts).
    const storage = { reserveBytes: args['reserve-mib'] * 2 ** 20, minFreeBytes: args['min-free-mib'] * 2 ** 20 };
    const startOff = await StorageWatch.check(dataDir, storage);
    const every = args['snapshot-every'];
    if (!Number.isInteger(every) || every < 0)
      throw new Error(`--snapshot-every: expected a whole number of entries, at least 0, got ${every}`);
    // On PostgreSQL the snapshot is in the database, where every node finds it.
    const snapshot = !args.snapshots
      ? undefined
      : shared !== null
        ? storeSnapshots(shared.blobs, withoutPassword(args.store!))
        : snapshotFile(dataDir);
    // On a shared database every node starts following; it leads once it holds the lease.
    const record = await LiveRecord.open(d, Date.now, startOff, { snapshot, following: shared !== null });
    const watch = new StorageWatch(dataDir, d.log, record, storage);
    if (startOff !== undefined) watch.reportStart();
    const cluster =
      shared === null
        ? undefined
        : new RecordCluster(shared, record, {
            node: nodeId,
            leaseMs,
            pollMs,
            fatal: (err) => {
              console.error('archive: the log in the database does not hold together; exiting:', err);
              process.exit(1);
            },
          });
    let stopping = false;
    // What only the node that leads runs: the scheduler, the doorbells, the witnesses.
    const leaderOnly: { start(): void; stop(): void }[] = [];
    // What falls due (lapses, reveals, ends of shut-outs) is logged within a second.
    let scheduler: NodeJS.Timeout | undefined;
    leaderOnly.push({
      start: () => {
        scheduler ??= setInterval(() => void record.tick().catch(() => undefined), 1000);
        scheduler.unref();
      },
      stop: () => {
        clearInterval(scheduler);
        scheduler = undefined;
      },
    });
    record.onFailure((err) => {
      if (!record.isBroken) return; // the storage watch reports it and turns writes on again
      // A checked entry failed to apply (a bug): stop, and let a restart replay the log.
      console.error('archive: an entry failed to apply; exiting so a restart replays the log:', err.cause ?? err);
      process.exit(1);
    });
    // Doorbells are rung every ten seconds, each at most as often as its cadence allows.
    const ringer = new DoorbellRinger(record.state, { origin: d.origin, allowLoopback: args['doorbell-allow-loopback'] });
    let bells: NodeJS.Timeout | undefined;
    leaderOnly.push({
      start: () => {
        bells ??= setInterval(() => void ringer.tick().catch((err) => console.error('archive: doorbell round failed:', err)), 10_000);
        bells.unref();
      },
      stop: () => {
        clearInterval(bells);
        bells = undefined;
      },
    });
    // On a shared database the leader keeps its cosigned checkpoint there, and followers serve it.
    const witnesses = new Witnesses(d.log, witnessConfig, { shared: shared === null ? undefined : cosignedIn(shared.blobs) });
    let witnessing: Promise<void> = Promise.resolve();
    leaderOnly.push({
      start: () => void (witnessing = witnessing.then(() => witnesses.stop()).then(() => witnesses.start())),
      stop: () => void (witnessing = witnessing.then(() => witnesses.stop()).then(() => (stopping ? undefined : witnesses.follow()))),
    });
    // The readers' indexes follow the record from now on; the search index is brought up to date
    // in the background (on a shared database, by the node that leads: the others read it).
    const readers = Readers.follow(record, d, { cluster });
    const server = await startServer(d, record, args.port, args.host, {
      readers,
      witnesses,
      auditLimit: { max: perMinute, windowSeconds: 60 },
      registerLimit: { max: args['register-limit'], windowSeconds: args['register-window'] },
      trustProxy,
      ipv6Prefix,
      ringer,
      role: cluster,
      minSeqWaitMs,
    });
    if (cluster === undefined) for (const s of leaderOnly) s.start();
    else {
      witnesses.follow();
      cluster.onLead(() => leaderOnly.forEach((s) => s.start()));
      cluster.onFollow(() => leaderOnly.forEach((s) => s.stop()));
      await cluster.start(args['advertise-url'] ?? server.url);
    }
    // The static copy is brought up to date through the service's own routes, so it withholds
    // what they withhold (docs/log-format.md, "A static copy").
    let tiles: NodeJS.Timeout | undefined;
    if (args['tiles-dir'] !== undefined) {
      if (!(args['tiles-every'] > 0)) throw new Error(`--tiles-every: expected a number of seconds above 0, got ${args['tiles-every']}`);
      const dir = resolve(args['tiles-dir']);
      let copied = -1;
      let running = false;
      const update = async () => {
        if (running || d.log.size === copied) return;
        running = true;
        try {
          const size = d.log.size;
          await writeStaticTiles(server.url, dir);
          copied = size;
        } catch (err) {
          console.error('archive: updating the static tiles failed:', err);
        } finally {
          running = false;
        }
      };
      void update();
      tiles = setInterval(() => void update(), args['tiles-every'] * 1000);
      tiles.unref();
    }
    // A snapshot of the state every `every` entries, and at a clean shutdown (docs/log-format.md,
    // "Snapshots"). Writing one blocks the node: the one that
    // leads writes none while others follow (they would take its lease over), only a follower or a
    // node alone does.
    const snapshots =
      snapshot === undefined
        ? undefined
        : record.engineReplica.keepSnapshots({
            every,
            mayBlock: async () => cluster === undefined || !cluster.leading || !(await cluster.othersUp()),
            written: (s, why) =>
              console.log(
                `archive: snapshot at entry ${s.treeSize} (${why}), ${Math.round(s.bytes / 2 ** 20)} MiB, ${Math.round(s.ms)} ms ` +
                  `(serving paused ${Math.round(s.heldMs)} ms)`,
              ),
            failed: (err) => console.error('archive: writing the snapshot failed:', err),
          });
    const stop = async (signal: string): Promise<void> => {
      if (stopping) return;
      stopping = true;
      console.log(`archive: ${signal}, closing`);
      for (const s of leaderOnly) s.stop();
      if (tiles !== undefined) clearInterval(tiles);
      snapshots?.stop();
      watch.stop();
      await witnesses.stop();
      await server.close();
      // The lease is given up at once: a follower takes it over without waiting for it to expire.
      await cluster?.stop();
      // The search index stops first: a build under way (an hour at ten million entries) would take a turn between each of
      // the snapshot's, and the shutdown would wait for both. The next start catches it up from its head, or builds it anew
      // when it was being built anew (its head is written last).
      await readers.search.close();
      await snapshots?.flush('shutdown');
      await d.close();
      process.exit(0);
    };
    process.on('SIGINT', () => void stop('SIGINT'));
    process.on('SIGTERM', () => void stop('SIGTERM'));
    // For an operator comparing nodes (docs/deploy.md): the size of the state and its digest.
    process.on('SIGUSR2', () => {
      console.log(`archive: state at entry ${record.state.size} of ${d.log.size}: sha256 ${stateDigest(record.state)}`);
    });
    // Last, once a signal would close it cleanly: whoever waits for this line may stop it at once.
    const role =
      cluster === undefined
        ? ''
        : `, node ${cluster.node} ${cluster.leading ? 'leading' : `following ${cluster.leaderUrl ?? '(no leader yet)'}`}`;
    console.log(
      `archive: serving ${d.origin} (operator ${d.operator}, ${d.log.size} entries) at ${server.url}, data in ` +
        `${dataDir}${args.store === undefined ? '' : `, log in ${withoutPassword(args.store)}`}${role}`,
    );
    void readers.search.ready.then(
      () => {
        const b = readers.search.lastBuild;
        if (b === null) return;
        if (b.from === null) console.log(`archive: the search index holds ${b.items} items, built in ${(b.ms / 1000).toFixed(1)} s`);
        else
          console.log(
            `archive: the search index is up to date, from entry ${b.from} (${b.items} items since), in ${(b.ms / 1000).toFixed(1)} s`,
          );
      },
      (err) => console.error('archive: building the search index failed:', err),
    );
    void server.credenceMade.then((s) => {
      if (s !== null)
        console.log(`archive: the served credence text is made for every claim (the operators' calibrations first), in ${s.toFixed(1)} s`);
    });
  },
};
