// Watching the store's disk: the reserve file, the probes of free space while writes are off, and turning writes on again once
// there is room (docs/record.md#a-full-or-failing-store).
import { open, rm, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArchiveError } from '../protocol/errors.js';
import type { RecordLog } from '../protocol/log-entry.js';

/** What the watch needs of the live record (lib/service/live-record.ts), which opens the store through this file. */
export interface WatchedRecord {
  readonly refusal: ArchiveError | null;
  readonly writesAreOff: boolean;
  readonly isBroken: boolean;
  /** False on a node that follows another (lib/service/cluster.ts): it has no writes to turn on. */
  readonly leading: boolean;
  onRefused: () => void;
  onFailure(f: (err: ArchiveError) => void): void;
  onResume(f: () => void): void;
  resume(): Promise<void>;
}

export const RESERVE_FILE = 'reserve';
const MIB = 2 ** 20;
// LevelDB, opening, turns its write-ahead log (up to its 64 MiB write buffer) into a table.
const DEFAULT_RESERVE = 80 * MIB;
const DEFAULT_MIN_FREE = 64 * MIB;

export interface StorageOptions {
  /** Size of the reserve file (default 80 MiB). */
  reserveBytes?: number;
  /** Free space (beyond the reserve) below which writes are not turned on (default 64 MiB). */
  minFreeBytes?: number;
  /** Milliseconds between probes while writes are off (default 5000). */
  probeMs?: number;
  /** Where the one-line reports go (default console.error). */
  say?: (line: string) => void;
}

/** Free bytes on the file system of `dir`, for an unprivileged writer. */
export async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

/** `err` and the errors it was caused by, outermost first (LevelDB's own words are in a cause). */
function* causes(err: unknown): Generator<Error> {
  for (let e = err; e instanceof Error; e = e.cause) yield e;
}

/** Whether a failed write failed for want of space (ENOSPC, EDQUOT, or LevelDB's words for it). */
export function isNoSpace(err: unknown): boolean {
  for (const e of causes(err)) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT' || /no space left|disk quota/i.test(e.message)) return true;
  }
  return false;
}

/**
 * Opens the store with `openStore`; if that fails for want of space and the data directory holds
 * its reserve, the reserve is deleted (freeing its space) and the store opened again. Any other
 * failure (the store locked by another process, a damaged file) is thrown as it is, the reserve
 * kept for the full disk it is there for.
 */
export async function openWithReserve<T>(dataDir: string, openStore: () => Promise<T>): Promise<T> {
  try {
    return await openStore();
  } catch (err) {
    if (!isNoSpace(err)) throw err;
    const reserve = join(dataDir, RESERVE_FILE);
    const had = await stat(reserve).then(
      () => true,
      () => false,
    );
    if (!had) throw err;
    await rm(reserve, { force: true });
    const why = [...causes(err)].map((e) => e.message).join(': ');
    console.error(`archive: the store did not open (${why}); deleted ${reserve} to free space, opening again`);
    return openStore();
  }
}

export class StorageWatch {
  private readonly say: (line: string) => void;
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<boolean> | null = null;
  private lastProbe = 0;

  constructor(
    private readonly dataDir: string,
    private readonly log: RecordLog,
    private readonly record: WatchedRecord,
    private readonly opts: StorageOptions = {},
  ) {
    this.say = opts.say ?? ((line) => console.error(line));
    record.onFailure((refusal) => this.report(refusal));
    record.onResume(() => this.say('archive: writes are on again: the store can write'));
    record.onRefused = () => {
      if (Date.now() - this.lastProbe >= 1000) void this.probe();
    };
  }

  /**
   * Why writes must start off, or undefined: too little free space, or no reserve and no room
   * to make one. Makes the reserve if it is missing and there is room.
   */
  static async check(dataDir: string, opts: StorageOptions = {}): Promise<Error | undefined> {
    try {
      await ensureRoom(dataDir, opts);
      return undefined;
    } catch (err) {
      return err as Error;
    }
  }

  /** Reports writes off at start (LiveRecord.open was given StorageWatch.check's reason) and starts probing. */
  reportStart(): void {
    this.report(this.record.refusal!);
  }

  private report(refusal: ArchiveError): void {
    const cause = refusal.cause instanceof Error ? ` (${refusal.cause.message})` : '';
    this.say(`archive: writes are off: ${refusal.detail.replace(/; nothing of this write was logged$/, '')}${cause}`);
    if (!this.record.isBroken) this.schedule();
  }

  /** Probes every `probeMs` until writes are on again. */
  schedule(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.probe(), this.opts.probeMs ?? 5000);
    this.timer.unref();
  }

  /** Tries to turn writes on again; resolves whether they are on. */
  probe(): Promise<boolean> {
    if (!this.record.leading) {
      // It follows: whoever leads writes; this node's writes come back on when it leads again.
      this.stop();
      return Promise.resolve(false);
    }
    if (!this.record.writesAreOff || this.record.isBroken) return Promise.resolve(!this.record.writesAreOff);
    this.probing ??= this.tryResume().finally(() => {
      this.probing = null;
      this.lastProbe = Date.now();
    });
    return this.probing;
  }

  private async tryResume(): Promise<boolean> {
    try {
      await ensureRoom(this.dataDir, this.opts);
      await this.log.recover();
      await this.record.resume();
    } catch {
      return false;
    }
    this.stop();
    return true;
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}

/** Throws (ENOSPC) unless the reserve is whole and the free space beyond it is enough; makes the reserve if there is room. */
async function ensureRoom(dataDir: string, opts: StorageOptions): Promise<void> {
  const reserve = join(dataDir, RESERVE_FILE);
  const reserveBytes = opts.reserveBytes ?? DEFAULT_RESERVE;
  const minFreeBytes = opts.minFreeBytes ?? DEFAULT_MIN_FREE;
  const whole = await stat(reserve).then(
    (s) => s.size >= reserveBytes,
    () => false,
  );
  const free = await freeBytes(dataDir);
  const needed = minFreeBytes + (whole ? 0 : reserveBytes);
  if (free < needed) throw noSpace(`${(free / MIB).toFixed(1)} MiB free in ${dataDir}, ${(needed / MIB).toFixed(1)} MiB needed`);
  if (!whole) await makeReserve(reserve, reserveBytes);
}

/** Writes the reserve file whole (zeros, synced); removes it if it cannot be. */
async function makeReserve(file: string, bytes: number): Promise<void> {
  const f = await open(file, 'w', 0o600);
  try {
    const chunk = Buffer.alloc(Math.min(bytes, MIB));
    for (let written = 0; written < bytes;) {
      const { bytesWritten } = await f.write(chunk, 0, Math.min(chunk.length, bytes - written));
      written += bytesWritten;
    }
    await f.sync();
  } catch (err) {
    await f.close();
    await rm(file, { force: true });
    throw err;
  }
  await f.close();
}

function noSpace(message: string): Error {
  const err = new Error(`no space left: ${message}`) as NodeJS.ErrnoException;
  err.code = 'ENOSPC';
  return err;
}
