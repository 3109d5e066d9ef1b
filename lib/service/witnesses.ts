// Cosigning by witnesses (docs/log-format.md, "Witnesses"): the service submits its newest
// checkpoint to each witness it is configured with (c2sp.org/tlog-witness add-checkpoint), at
// most once a second, keeps the cosignatures that verify by the witness's key, and serves the
// checkpoint with them appended. Writes never wait for a witness: a witness that fails only
// leaves its cosignature off, and its failure is logged once per change of state. When many
// nodes share one database (docs/deploy.md), only the leader submits; it keeps each cosigned
// checkpoint in the database, and the nodes that follow serve it from there once it is of their
// own log and its cosignatures verify by the witnesses' keys they were given.
import { addCheckpointBody, cosignaturesOn, parseCheckpoint, parseCosignerKey, toHex, type CosignerKey, type BlobStore } from 'tlog-engine';
import { verifyRaw } from '../protocol/ed25519.js';
import type { RecordLog } from '../protocol/log-entry.js';

/** One configured witness: where its add-checkpoint lives and its key. */
export interface WitnessConfig {
  /** The submission prefix: requests go to `${url}/add-checkpoint`. */
  url: string;
  vkey: string;
  key: CosignerKey;
}

/** Parses `--witness URL=VKEY` (the URL holds no '='). */
export function parseWitnessFlag(flag: string): WitnessConfig {
  const i = flag.indexOf('=');
  if (i < 0) throw new Error(`--witness ${flag}: expected URL=VKEY`);
  const url = flag.slice(0, i).replace(/\/+$/, '');
  const vkey = flag.slice(i + 1);
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new Error(`--witness ${flag}: ${url} is not an http(s) URL`);
  try {
    return { url, vkey, key: parseCosignerKey(vkey) };
  } catch (err) {
    throw new Error(`--witness ${flag}: ${(err as Error).message}`);
  }
}

interface Tracked extends WitnessConfig {
  /** The size this witness last cosigned, as far as we know (0 before we learn it). */
  known: number;
  /** 'ok' or why the last submission failed; logged when it changes. */
  status: string;
}

/** Where the leader keeps its cosigned checkpoint for the nodes that follow (the database's blobs). */
export interface CosignedPlace {
  put(treeSize: number, note: string): Promise<unknown>;
  get(): Promise<string | null>;
}

/** The blob of a shared store that holds the leader's last cosigned checkpoint. */
export const COSIGNED_BLOB = 'checkpoint.cosigned';

export const cosignedIn = (blobs: BlobStore): CosignedPlace => ({
  put: (treeSize, note) => blobs.put(COSIGNED_BLOB, treeSize, Buffer.from(note, 'utf8')),
  get: async () => (await blobs.get(COSIGNED_BLOB))?.bytes.toString('utf8') ?? null,
});

export interface WitnessesOptions {
  /** Least time between two rounds (default 1000 ms). */
  intervalMs?: number;
  /** Keep each cosigned checkpoint here too (the leader), or serve the one kept here (a follower). */
  shared?: CosignedPlace;
  /** Time a witness has to answer (default 5000 ms). */
  timeoutMs?: number;
  /** Where state changes are logged (default console.error). */
  note?: (line: string) => void;
}

/** Submits the log's checkpoints to its witnesses and holds the latest cosigned one. */
export class Witnesses {
  private readonly tracked: Tracked[];
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly note: (line: string) => void;
  /** The checkpoint of the last round, with the cosignatures it got; null before the first. */
  private cosigned: { size: number; note: string; count: number } | null = null;
  private running: Promise<void> | null = null;
  private lastRoundAt = 0;
  private retry = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly shared: CosignedPlace | undefined;

  constructor(
    private readonly log: RecordLog,
    witnesses: WitnessConfig[],
    opts: WitnessesOptions = {},
  ) {
    this.tracked = witnesses.map((w) => ({ ...w, known: 0, status: 'ok' }));
    this.intervalMs = opts.intervalMs ?? 1000;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.note = opts.note ?? ((line) => console.error(line));
    this.shared = opts.shared;
  }

  /** The witnesses, as GET / lists them. */
  list(): { url: string; key: string; cosignedSize: number | null }[] {
    return this.tracked.map((w) => ({ url: w.url, key: w.vkey, cosignedSize: w.status === 'ok' && w.known > 0 ? w.known : null }));
  }

  /** The served checkpoint: the last round's with its cosignatures, else the log's newest. */
  checkpoint(): string {
    return this.cosigned !== null && this.cosigned.count > 0 ? this.cosigned.note : this.log.checkpoint();
  }

  /** Runs rounds every `intervalMs` until `stop`. */
  start(): void {
    if (this.tracked.length === 0 || this.timer !== null) return;
    const tick = () => void this.tick().catch((err) => this.note(`archive: witness round failed: ${(err as Error).message}`));
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
    tick();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * On a node that follows: every `intervalMs`, serves the cosigned checkpoint the leader kept
   * in the shared place, once it is a checkpoint of this node's log (its size within the tree,
   * its root the tree's at that size) and cosigned by witnesses this node knows. Until `stop`.
   */
  follow(): void {
    if (this.tracked.length === 0 || this.shared === undefined || this.timer !== null) return;
    const tick = () =>
      void this.adopt().catch((err) => this.note(`archive: reading the cosigned checkpoint failed: ${(err as Error).message}`));
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
    tick();
  }

  private async adopt(): Promise<void> {
    const note = await this.shared!.get();
    if (note === null || note === this.cosigned?.note) return;
    const text = note.slice(0, note.lastIndexOf('\n\n') + 1);
    const cp = parseCheckpoint(text);
    if (cp.treeSize > this.log.size || cp.treeSize === 0) return;
    if (toHex(await this.log.rootAt(cp.treeSize)) !== toHex(cp.rootHash)) return;
    const count = cosignaturesOn(
      note,
      this.tracked.map((w) => w.key),
      verifyRaw,
    ).length;
    if (count > 0) this.cosigned = { size: cp.treeSize, note, count };
  }

  /** Starts a round when the head moved (or a witness failed) and the last round is old enough. */
  tick(): Promise<void> {
    if (this.running !== null) return this.running;
    const moved = this.cosigned === null || this.cosigned.size !== this.log.size;
    if (this.tracked.length === 0 || (!moved && !this.retry) || Date.now() - this.lastRoundAt < this.intervalMs) return Promise.resolve();
    this.lastRoundAt = Date.now();
    this.running = this.round().finally(() => (this.running = null));
    return this.running;
  }

  private async round(): Promise<void> {
    const note = this.log.checkpoint();
    const size = parseCheckpoint(note.slice(0, note.lastIndexOf('\n\n') + 1)).treeSize;
    const lines = await Promise.all(this.tracked.map((w) => this.submit(w, note, size)));
    const got = lines.filter((l): l is string => l !== null);
    this.retry = got.length < this.tracked.length;
    this.cosigned = { size, note: note + got.join(''), count: got.length };
    if (got.length > 0) await this.shared?.put(size, this.cosigned.note).catch(() => undefined);
  }

  /** One witness's cosignature line on `note`, or null (its failure logged if it is new). */
  private async submit(w: Tracked, note: string, size: number): Promise<string | null> {
    try {
      for (let attempt = 0; ; attempt++) {
        if (w.known > size) throw new Error(`it cosigned a tree of size ${w.known}, above ours (${size})`);
        const proof = w.known === 0 || w.known === size ? [] : await this.log.consistencyProof(w.known, size);
        const res = await fetch(`${w.url}/add-checkpoint`, {
          method: 'POST',
          body: addCheckpointBody(w.known, proof, note),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        const body = await res.text();
        if (res.status === 409 && attempt === 0 && /^(0|[1-9][0-9]*)\n$/.test(body)) {
          w.known = Number(body); // it holds another size: submit again from it
          continue;
        }
        if (res.status !== 200) throw new Error(`add-checkpoint answered ${res.status}: ${body.split('\n')[0]!.slice(0, 200)}`);
        const line = body.split('\n').find((l) => l !== '' && cosignaturesOn(`${note}${l}\n`, [w.key], verifyRaw).length === 1);
        if (line === undefined) throw new Error('its answer holds no valid cosignature by its key');
        w.known = size;
        this.setStatus(w, 'ok');
        return `${line}\n`;
      }
    } catch (err) {
      this.setStatus(w, (err as Error).message);
      return null;
    }
  }

  private setStatus(w: Tracked, status: string): void {
    if (status === w.status) return;
    w.status = status;
    this.note(status === 'ok' ? `archive: witness ${w.url} cosigns again` : `archive: witness ${w.url} does not cosign: ${status}`);
  }
}
