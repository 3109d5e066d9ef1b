// The witness client of a log: submits its newest checkpoint to each witness (c2sp.org/tlog-witness add-checkpoint) and
// holds the checkpoint with the cosignatures that verify (docs/engine.md#witnesses).
import { parseCheckpoint } from '../checkpoint.js';
import { addCheckpointBody, cosignaturesOn, parseCosignerKey, type CosignerKey } from '../cosignature.js';
import { LogError } from '../errors.js';
import { toHex } from '../hash.js';
import { checkedUrl } from '../client/log-client.js';
import { verifyEd25519 } from '../client/ed25519.js';

/** One witness: where its add-checkpoint lives and its key. */
export interface WitnessConfig {
  /** The submission prefix: requests go to `${url}/add-checkpoint`. */
  url: string;
  vkey: string;
  key: CosignerKey;
}

/**
 * The witness at `url` (its submission prefix, kept as given but for trailing slashes) with the cosigner vkey
 * `vkey`; throws LogError('bad_argument') on either.
 */
export function witnessConfig(url: string, vkey: string): WitnessConfig {
  checkedUrl(url);
  return { url: url.replace(/\/+$/, ''), vkey, key: parseCosignerKey(vkey) };
}

/** What of a log the witness client reads: its size, newest checkpoint, proofs and roots (a Reader is one). */
export interface CosignedLog {
  readonly size: number;
  checkpoint(): string;
  consistencyProof(first: number, second: number): Promise<Uint8Array[]>;
  rootAt(size: number): Promise<Uint8Array>;
}

/** Where the process that submits keeps its last cosigned checkpoint for the others (`put`), and where they read it (`get`). */
export interface CosignedPlace {
  put(treeSize: number, note: string): Promise<unknown>;
  get(): Promise<string | null>;
}

export interface WitnessesOptions {
  /** Least time between two rounds (default 1000 ms). */
  intervalMs?: number;
  /** Keep each cosigned checkpoint here too (the process that submits), or serve the one kept here (the others). */
  shared?: CosignedPlace;
  /** Time a witness has to answer (default 5000 ms). */
  timeoutMs?: number;
  /** Where a witness's change of state is noted (default console.error). */
  note?: (line: string) => void;
}

interface Tracked extends WitnessConfig {
  /** The size this witness last cosigned, as far as we know (0 before we learn it). */
  known: number;
  /** 'ok' or why the last submission failed; noted when it changes. */
  status: string;
}

const SIZE_BODY = /^(0|[1-9][0-9]*)\n$/;

/** Submits a log's checkpoints to its witnesses and holds the latest cosigned one. */
export class Witnesses {
  private readonly tracked: Tracked[];
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly note: (line: string) => void;
  private readonly shared: CosignedPlace | undefined;
  /** The checkpoint of the last round, with the cosignatures it got; null before the first. */
  private cosigned: { size: number; note: string; count: number } | null = null;
  private running: Promise<void> | null = null;
  private lastRoundAt = 0;
  private retry = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: CosignedLog,
    witnesses: WitnessConfig[],
    opts: WitnessesOptions = {},
  ) {
    this.tracked = witnesses.map((w) => ({ ...w, known: 0, status: 'ok' }));
    this.intervalMs = opts.intervalMs ?? 1000;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.note = opts.note ?? ((line) => console.error(line));
    this.shared = opts.shared;
  }

  /** The witnesses, each with the size it last cosigned (null while it fails, or before it first cosigned). */
  list(): { url: string; key: string; cosignedSize: number | null }[] {
    return this.tracked.map((w) => ({ url: w.url, key: w.vkey, cosignedSize: w.status === 'ok' && w.known > 0 ? w.known : null }));
  }

  /** The checkpoint to serve: the last round's with its cosignatures, else the log's newest. */
  checkpoint(): string {
    return this.cosigned !== null && this.cosigned.count > 0 ? this.cosigned.note : this.log.checkpoint();
  }

  /** Runs rounds every `intervalMs` until `stop`. */
  start(): void {
    if (this.tracked.length === 0 || this.timer !== null) return;
    const tick = () => void this.tick().catch((err) => this.note(`witness round failed: ${(err as Error).message}`));
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
    tick();
  }

  /** Stops the rounds (or the following) and waits for the round under way. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * In a process that does not submit: every `intervalMs`, serves the cosigned checkpoint kept in
   * the shared place, once it is a checkpoint of this log (its size within the tree, its root the
   * tree's at that size) and cosigned by witnesses this client knows. Until `stop`.
   */
  follow(): void {
    if (this.tracked.length === 0 || this.shared === undefined || this.timer !== null) return;
    const tick = () => void this.adopt().catch((err) => this.note(`reading the cosigned checkpoint failed: ${(err as Error).message}`));
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
    tick();
  }

  private async adopt(): Promise<void> {
    const note = await this.shared!.get();
    if (note === null || note === this.cosigned?.note) return;
    const cp = parseCheckpoint(note.slice(0, note.lastIndexOf('\n\n') + 1));
    if (cp.treeSize > this.log.size || cp.treeSize === 0) return;
    if (toHex(await this.log.rootAt(cp.treeSize)) !== toHex(cp.rootHash)) return;
    const count = cosignaturesOn(
      note,
      this.tracked.map((w) => w.key),
      verifyEd25519,
    ).length;
    if (count > 0) this.cosigned = { size: cp.treeSize, note, count };
  }

  /** Starts a round when the log grew (or a witness failed) and the last round is old enough; resolves when it is done. */
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

  /** One witness's cosignature line on `note`, or null (its failure noted if it is new). */
  private async submit(w: Tracked, note: string, size: number): Promise<string | null> {
    try {
      for (let attempt = 0; ; attempt++) {
        if (w.known > size) throw new LogError('unavailable', `it cosigned a tree of size ${w.known}, above ours (${size})`);
        const proof = w.known === 0 || w.known === size ? [] : await this.log.consistencyProof(w.known, size);
        const res = await fetch(`${w.url}/add-checkpoint`, {
          method: 'POST',
          body: addCheckpointBody(w.known, proof, note),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        const body = await res.text();
        if (res.status === 409 && attempt === 0 && SIZE_BODY.test(body)) {
          w.known = Number(body); // it holds another size: submit again from it
          continue;
        }
        if (res.status !== 200)
          throw new LogError('unavailable', `add-checkpoint answered ${res.status}: ${body.split('\n')[0]!.slice(0, 200)}`);
        const line = body.split('\n').find((l) => l !== '' && cosignaturesOn(`${note}${l}\n`, [w.key], verifyEd25519).length === 1);
        if (line === undefined) throw new LogError('unavailable', 'its answer holds no valid cosignature by its key');
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
    this.note(status === 'ok' ? `witness ${w.url} cosigns again` : `witness ${w.url} does not cosign: ${status}`);
  }
}
