// Doorbell ringing: the node that leads POSTs a wake-up to each `webhook` doorbell when something is owed or new, retries a
// failed ring, and marks a doorbell failing (docs/record.md#doorbells). Rings are not entries of the log.
import { lookup } from 'node:dns/promises';
import { request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Agent, State } from '../../record/fold/index.js';
import { PROTOCOL } from '../../protocol/service-event.js';
import { forbiddenAddress } from '../../protocol/doorbell-address.js';
import { claimField, inFields, operatorFields, argumentInView, challengeInView } from '../../record/views/index.js';

export const CADENCE_MS: Record<string, number> = { immediate: 0, hourly: 60 * 60 * 1000, daily: 24 * 60 * 60 * 1000 };
/** Waits before the retries of a failed ring; one more failure marks the doorbell failing. */
export const BACKOFF_MS = [60_000, 5 * 60_000, 30 * 60_000];

export interface RingerOptions {
  origin: string;
  clock?: () => number;
  /** Allow addresses that resolve to loopback (tests only). */
  allowLoopback?: boolean;
  /** Extra trusted CA certificates (PEM), for a test's own https server. */
  ca?: string;
  timeoutMs?: number;
}

/** What the ringer remembers of one doorbell, for the doorbell set at entry `seq`. */
interface Bell {
  seq: number;
  /** The log size when last rung: news is what came after. */
  seen: number;
  owed: number;
  rungAt: number | null;
  failures: number;
  retryAt: number;
  failing: string | null;
}

/** The wake-up a doorbell receives (documented in /skill.md). */
export interface WakeUp {
  protocol: string;
  type: 'doorbell.ring';
  origin: string;
  agent: string;
  at: string;
  treeSize: number;
  owed: number;
  news: { papers: number; challenges: number; arguments: number };
  heartbeat: string;
}

/** A system error's code (ECONNREFUSED, CERT_HAS_EXPIRED, ...): a word, never an address. */
function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : 'error';
}

/** Why a ring failed, as the heartbeat may show it: the ringer's own reason, or a system error's code. */
function failureReason(err: unknown): string {
  const reason = (err as { reason?: unknown } | null)?.reason;
  return typeof reason === 'string' ? reason : `could not deliver (${errorCode(err)})`;
}

export class DoorbellRinger {
  private readonly bells = new Map<string, Bell>();
  private readonly clock: () => number;
  private running: Promise<void> | null = null;

  constructor(
    private readonly state: State,
    private readonly opts: RingerOptions,
  ) {
    this.clock = opts.clock ?? Date.now;
  }

  /** The doorbell's status as the heartbeat shows it: `failing` once marked. */
  status(handle: string): string | null {
    const agent = this.state.agents.get(handle);
    const bell = this.bells.get(handle);
    if (agent?.doorbell === null || agent === undefined || bell === undefined || bell.seq !== agent.doorbell.seq) return null;
    return bell.failing === null ? null : 'failing';
  }

  /** Why the doorbell was marked failing, if it was. */
  failure(handle: string): string | null {
    const bell = this.bells.get(handle);
    return bell?.failing ?? null;
  }

  /** Rings every doorbell that is due; one round at a time. */
  tick(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = null));
    return this.running;
  }

  private async round(): Promise<void> {
    const now = this.clock();
    const bells = [...this.state.agents.values()].filter(
      (a) => a.doorbell?.status === 'set' && a.doorbell.kind === 'webhook' && a.doorbell.url !== null && a.retiredSeq === null,
    );
    if (bells.length === 0) return;
    const owed = new Map<string, number>();
    for (const r of this.state.receipts.values()) {
      if (r.stage === 'sealed' || r.stage === 'committed') owed.set(r.agent, (owed.get(r.agent) ?? 0) + 1);
    }
    const rings: Promise<void>[] = [];
    for (const agent of bells) {
      const d = agent.doorbell!;
      if (d.url === null) continue;
      let bell = this.bells.get(agent.handle);
      if (bell === undefined || bell.seq !== d.seq) {
        // Set anew: what came before it is not news, and a failing mark is lifted.
        bell = { seq: d.seq, seen: d.seq + 1, owed: 0, rungAt: null, failures: 0, retryAt: 0, failing: null };
        this.bells.set(agent.handle, bell);
      }
      if (bell.failing !== null || now < bell.retryAt) continue;
      if (bell.rungAt !== null && now - bell.rungAt < (CADENCE_MS[d.cadence] ?? 0)) continue;
      const n = owed.get(agent.handle) ?? 0;
      const news = this.news(agent, bell.seen);
      if (news.papers + news.challenges + news.arguments === 0 && (n === 0 || n === bell.owed)) continue;
      const wake: WakeUp = {
        protocol: PROTOCOL,
        type: 'doorbell.ring',
        origin: this.opts.origin,
        agent: agent.handle,
        at: new Date(now).toISOString(),
        treeSize: this.state.size,
        owed: n,
        news,
        heartbeat: `/v2/heartbeat?agent=${agent.handle}`,
      };
      rings.push(this.ring(bell, d.url, wake, now));
    }
    await Promise.all(rings);
  }

  /** Papers, open challenges and open arguments since `seen`, in view, in the agent's fields, not its operator's own. */
  private news(agent: Agent, seen: number): WakeUp['news'] {
    const fields = operatorFields(this.state, agent.operatorId);
    let papers = 0;
    for (const p of this.state.papers.values())
      if (p.seq >= seen && p.operatorId !== agent.operatorId && inFields(fields, p.field) && !this.state.outOfView.has(p.id)) papers++;
    let challenges = 0;
    for (const c of this.state.challenges.values())
      if (
        c.seq >= seen &&
        c.status === 'open' &&
        c.operatorId !== agent.operatorId &&
        inFields(fields, claimField(this.state, c.claim)) &&
        challengeInView(this.state, c.id, c.claim)
      )
        challenges++;
    let args = 0;
    for (const a of this.state.argumentsById.values())
      if (
        a.seq >= seen &&
        a.status === 'open' &&
        a.operatorId !== agent.operatorId &&
        inFields(fields, claimField(this.state, a.claim)) &&
        argumentInView(this.state, a)
      )
        args++;
    return { papers, challenges, arguments: args };
  }

  private async ring(bell: Bell, url: string, wake: WakeUp, now: number): Promise<void> {
    try {
      await this.post(url, wake);
      bell.seen = wake.treeSize;
      bell.owed = wake.owed;
      bell.rungAt = now;
      bell.failures = 0;
      bell.retryAt = 0;
    } catch (err) {
      const why = failureReason(err);
      if ((err as { refused?: boolean }).refused === true) {
        bell.failing = why;
        return;
      }
      bell.failures++;
      if (bell.failures > BACKOFF_MS.length) bell.failing = `${bell.failures} rings in a row failed; the last: ${why}`;
      else bell.retryAt = now + BACKOFF_MS[bell.failures - 1]!;
    }
  }

  /** POSTs the wake-up to an address checked and pinned: the connection goes to the IP checked. */
  private async post(url: string, wake: WakeUp): Promise<void> {
    // Reasons are the ringer's own words, never the address, the host or a system message that
    // might quote them: the heartbeat shows them to anyone (docs/record.md, "Doorbells").
    const refused = (why: string) => Object.assign(new Error(why), { refused: true, reason: why });
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw refused("the doorbell's address is not a URL");
    }
    if (u.protocol !== 'https:') throw refused("the doorbell's address is not https://");
    const host = u.hostname.replace(/^\[|\]$/g, '');
    let addresses: { address: string; family: number }[];
    try {
      addresses = await lookup(host, { all: true });
    } catch (err) {
      throw Object.assign(new Error('lookup failed'), { reason: `the doorbell's host did not resolve (${errorCode(err)})` });
    }
    for (const a of addresses) {
      const why = forbiddenAddress(a.address, this.opts.allowLoopback);
      if (why !== null) throw refused(`the doorbell's host resolves to a refused address: ${why}`);
    }
    const pinned = addresses[0]!;
    const pin: LookupFunction = (_h, options, cb) => {
      if ((options as { all?: boolean }).all)
        (cb as unknown as (err: null, all: { address: string; family: number }[]) => void)(null, [
          { address: pinned.address, family: pinned.family },
        ]);
      else cb(null, pinned.address, pinned.family);
    };
    const body = JSON.stringify(wake);
    await new Promise<void>((resolve, reject) => {
      const req = request(
        {
          hostname: host,
          port: u.port === '' ? 443 : Number(u.port),
          path: `${u.pathname}${u.search}`,
          method: 'POST',
          lookup: pin,
          ...(isIP(host) === 0 ? { servername: host } : {}),
          ca: this.opts.ca,
          timeout: this.opts.timeoutMs ?? 5000,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': `archive doorbell (${this.opts.origin})`,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300
              ? resolve()
              : reject(Object.assign(new Error('not 2xx'), { reason: `answered ${res.statusCode}` })),
          );
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { reason: 'timed out' })));
      req.on('error', reject);
      req.end(body);
    });
  }
}
