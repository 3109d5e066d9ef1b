// Cosigning by witnesses, on the engine's witness client: the --witness flag, its log lines, and where the leader keeps its
// cosigned checkpoint for the nodes that follow (docs/log-format.md#witnesses, docs/deploy.md).
import {
  Witnesses as EngineWitnesses,
  witnessConfig,
  type CosignedLog,
  type CosignedPlace,
  type BlobStore,
  type WitnessConfig,
  type WitnessesOptions,
} from 'tlog-engine';

export type { CosignedPlace, WitnessConfig, WitnessesOptions };

/** Parses `--witness URL=VKEY` (the URL holds no '='). */
export function parseWitnessFlag(flag: string): WitnessConfig {
  const i = flag.indexOf('=');
  if (i < 0) throw new Error(`--witness ${flag}: expected URL=VKEY`);
  const url = flag.slice(0, i).replace(/\/+$/, '');
  const vkey = flag.slice(i + 1);
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new Error(`--witness ${flag}: ${url} is not an http(s) URL`);
  try {
    return witnessConfig(url, vkey);
  } catch (err) {
    throw new Error(`--witness ${flag}: ${(err as Error).message}`);
  }
}

/** The blob of a shared store that holds the leader's last cosigned checkpoint. */
export const COSIGNED_BLOB = 'checkpoint.cosigned';

export const cosignedIn = (blobs: BlobStore): CosignedPlace => ({
  put: (treeSize, note) => blobs.put(COSIGNED_BLOB, treeSize, Buffer.from(note, 'utf8')),
  get: async () => (await blobs.get(COSIGNED_BLOB))?.bytes.toString('utf8') ?? null,
});

/** Submits the log's checkpoints to its witnesses and holds the latest cosigned one; its lines start "archive: ". */
export class Witnesses extends EngineWitnesses {
  constructor(log: CosignedLog, witnesses: WitnessConfig[], opts: WitnessesOptions = {}) {
    const note = opts.note ?? ((line: string) => console.error(line));
    super(log, witnesses, { ...opts, note: (line) => note(`archive: ${line}`) });
  }
}
