// Many processes on one shared store: one holds the sequencer lease and admits writes, the others follow the log, and one of
// them takes the lease once it has expired (docs/engine.md#running-a-state-machine, docs/engine.md#sharing-a-store).
import { randomBytes } from 'node:crypto';
import type { Log } from './log.js';
import type { Replica } from './replica.js';
import type { Lease, Membership, SharedStore } from './store.js';

export interface ClusterOptions {
  /** This process's id among the processes sharing the store (default: a random one, new at each start). */
  node?: string;
  /** Where each process notes that it is up (a shared store's `members`), for `othersUp` and a status page. */
  members?: Membership;
  /** How long the lease lasts unless renewed, in ms (default 5000). */
  leaseMs?: number;
  /** How often a follower reads the head and the lease without being told, in ms (default 1000). */
  pollMs?: number;
  /** Where one-line reports go (default console.log). */
  say?: (line: string) => void;
  /** Called when following fails in a way a retry cannot mend (the store holds a log that does not hold together). */
  fatal?: (err: unknown) => void;
  /** Called once leading, before `onLead` listeners: what an application does first when it leads (say, log what fell due). */
  onLeading?: () => Promise<void>;
}

export const DEFAULT_LEASE_MS = 5000;

type Role = 'leader' | 'follower';

export class Cluster {
  readonly node: string;
  /** The URL the other nodes forward writes to while this node leads (set by start). */
  url = '';
  readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly say: (line: string) => void;
  private readonly fatal: (err: unknown) => void;
  private role: Role = 'follower';
  /** The lease as last read. */
  private lease: Lease | null = null;
  /** When (local clock) the renewal that last succeeded was sent. */
  private renewedAt = 0;
  private lastAnnounce = 0;
  /** Steps (refreshes, lease moves) run one at a time, in this chain. */
  private chain: Promise<void> = Promise.resolve();
  private queued = { head: false, lease: false };
  private timer: NodeJS.Timeout | null = null;
  private watcher: { close(): Promise<void> } | null = null;
  private stopped = false;
  private leadFns: (() => void)[] = [];
  private followFns: (() => void)[] = [];
  /** Callers waiting to learn who leads. */
  private leaderWaiters: (() => void)[] = [];

  private readonly members: Membership | undefined;
  private readonly onLeading: () => Promise<void>;

  constructor(
    private readonly store: SharedStore,
    private readonly log: Log,
    private readonly replica: Replica<unknown, unknown>,
    opts: ClusterOptions = {},
  ) {
    this.node = opts.node ?? `node-${randomBytes(6).toString('hex')}`;
    this.members = opts.members;
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = opts.pollMs ?? 1000;
    this.say = opts.say ?? ((line) => console.log(line));
    this.fatal = opts.fatal ?? ((err) => this.say(`following the log failed: ${(err as Error).message}`));
    this.onLeading = opts.onLeading ?? (() => Promise.resolve());
    replica.onFenced(() => this.enqueue(() => this.demote('a commit was fenced: another process took the sequencer lease')));
  }

  /**
   * Starts following (and leading when the lease is free), advertising `url` as where this node
   * takes writes: resolves after the first step.
   */
  async start(url: string): Promise<void> {
    this.url = url;
    this.watcher = this.store.watch((what) => this.poke(what));
    const every = Math.max(50, Math.min(this.pollMs, this.leaseMs / 5));
    this.timer = setInterval(() => this.poke('tick'), every);
    this.timer.unref();
    await this.enqueue(() => this.step('tick'));
  }

  /** Whether this node admits writes now. */
  get leading(): boolean {
    return this.role === 'leader';
  }

  /** The URL of the node that leads, as far as this one knows: its own while it leads; null when the lease is not held. */
  get leaderUrl(): string | null {
    if (this.role === 'leader') return this.url;
    const l = this.lease;
    return l !== null && l.node !== null && l.url !== null && l.url !== '' && l.remainingMs > 0 ? l.url : null;
  }

  /** The URL of the node that leads, waiting up to `ms` to learn one (a failover under way); null if none by then. */
  async leader(ms: number): Promise<string | null> {
    const until = Date.now() + ms;
    while (this.leaderUrl === null && !this.stopped) {
      const left = until - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.leaderWaiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
      // The lease may have moved: read it rather than wait for the next step.
      if (this.leaderUrl === null) await this.readLease().catch(() => undefined);
    }
    return this.leaderUrl;
  }

  /** Calls `f` each time this node starts leading (start what only the leader runs). */
  onLead(f: () => void): void {
    this.leadFns.push(f);
  }

  /** Calls `f` each time this node stops leading. */
  onFollow(f: () => void): void {
    this.followFns.push(f);
  }

  /** Stops: gives the lease up if this node holds it (another takes it at once), and stops following. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    await this.chain;
    if (this.role === 'leader') {
      this.role = 'follower';
      for (const f of this.followFns) f();
      await this.replica.stopLeading('it is shutting down');
    }
    await this.store.lease.release().catch(() => undefined);
    await this.watcher?.close();
    this.wakeLeaderWaiters();
  }

  /** A notification or the timer: one step, unless one of the same kind is already waiting. */
  private poke(what: 'head' | 'lease' | 'tick'): void {
    if (this.stopped) return;
    const kind = what === 'lease' ? 'lease' : 'head';
    if (what !== 'tick' && this.queued[kind]) return;
    if (what !== 'tick') this.queued[kind] = true;
    void this.enqueue(async () => {
      if (what !== 'tick') this.queued[kind] = false;
      await this.step(what);
    });
  }

  private enqueue(f: () => Promise<void>): Promise<void> {
    const run = this.chain.then(f).catch((err) => {
      this.say(`cluster step failed: ${(err as Error).message}`);
    });
    this.chain = run;
    return run;
  }

  private async readLease(): Promise<Lease> {
    const lease = await this.store.lease.read();
    this.lease = lease;
    if (this.leaderUrl !== null) this.wakeLeaderWaiters();
    return lease;
  }

  private wakeLeaderWaiters(): void {
    const w = this.leaderWaiters;
    this.leaderWaiters = [];
    for (const f of w) f();
  }

  private async step(what: 'head' | 'lease' | 'tick'): Promise<void> {
    if (this.stopped) return;
    if (this.role === 'leader') {
      if (what === 'head') return; // its own commits
      await this.renew(what === 'lease');
    } else {
      await this.follow();
      if (what !== 'head') {
        const lease = await this.readLease();
        if (lease.node === this.node || lease.node === null || lease.remainingMs <= 0) await this.promote();
      }
    }
    await this.announce();
  }

  /**
   * Folds what the leader committed since the last refresh, from a state that is the log's (a
   * process that led may hold entries that were refused). An entry the fold cannot apply, or a
   * log in the store that does not hold together, is fatal: a restart replays the log.
   */
  private async follow(): Promise<void> {
    await this.replica.settle();
    let broken: unknown = null;
    try {
      await this.log.refresh((entries) => {
        try {
          this.replica.follow(entries);
        } catch (err) {
          broken = err;
          throw err;
        }
      });
    } catch (err) {
      if (broken !== null || (err as { code?: string }).code === 'corrupt') this.fatal(broken ?? err);
      throw err;
    }
  }

  /** The leader's renewal, every third of the lease (or at once when told the lease moved). */
  private async renew(now: boolean): Promise<void> {
    const sent = Date.now();
    if (!now && sent - this.renewedAt < this.leaseMs / 3) return;
    let held: boolean;
    try {
      held = await this.store.lease.renew(this.leaseMs);
    } catch (err) {
      // Not renewed: past most of its length, stop admitting writes (they could not be committed
      // once another takes the lease), and follow until the store answers again.
      if (Date.now() - this.renewedAt > this.leaseMs * 0.8)
        await this.demote(`the sequencer lease could not be renewed (${(err as Error).message})`);
      return;
    }
    if (held) this.renewedAt = sent;
    else await this.demote('another node took the sequencer lease');
  }

  /** Takes the lease if it is free, catches the state up to the head at that moment, and leads. */
  private async promote(): Promise<void> {
    const sent = Date.now();
    const got = await this.store.lease.acquire({ node: this.node, url: this.url }, this.leaseMs);
    if (got === null) return;
    this.renewedAt = sent;
    try {
      // Nobody else can move the head any more: this is the last committed head, caught up.
      await this.follow();
      const size = got.head?.treeSize ?? 0;
      if (this.log.size !== size) throw new Error(`the log is at ${this.log.size}, the head at the lease ${size}`);
      this.replica.lead();
      await this.onLeading().catch(() => undefined);
    } catch (err) {
      await this.store.lease.release().catch(() => undefined);
      throw err;
    }
    this.role = 'leader';
    this.lease = { epoch: got.epoch, node: this.node, url: this.url, remainingMs: this.leaseMs };
    this.wakeLeaderWaiters();
    this.say(`this node leads (lease epoch ${got.epoch}) from entry ${this.log.size}; it takes writes at ${this.url}`);
    for (const f of this.leadFns) f();
  }

  /** Stops leading: what was admitted is committed or refused, the state is the log's, and the node follows. */
  private async demote(why: string): Promise<void> {
    if (this.role !== 'leader') return;
    this.role = 'follower';
    this.lease = null;
    for (const f of this.followFns) f();
    this.say(`this node no longer leads: ${why}; it follows`);
    await this.replica.stopLeading(why);
  }

  /** Notes this process among the members every half lease. */
  private async announce(): Promise<void> {
    const now = Date.now();
    if (this.members === undefined || now - this.lastAnnounce < this.leaseMs / 2) return;
    this.lastAnnounce = now;
    await this.members.announce({ node: this.node, url: this.url, role: this.role, treeSize: this.replica.size });
  }

  /** Whether another process announced itself within the last three leases (a leader that is alone may block, say to write a snapshot). */
  async othersUp(): Promise<boolean> {
    if (this.members === undefined) return false;
    const nodes = await this.members.nodes();
    return nodes.some((n) => n.node !== this.node && n.seenMsAgo < 3 * this.leaseMs);
  }
}
