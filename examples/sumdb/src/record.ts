// A checksum database record (https://go.dev/design/25530-sumdb): the two go.sum lines of one module version, whose text is the
// log's leaf, byte for byte (README.md#the-http-contract).
import { checkModuleVersion, ModuleError } from './module.js';

/** A parsed record: the module version it is for, and its exact text. */
export interface SumRecord {
  path: string;
  version: string;
  text: string;
}

/** A record that is not two go.sum lines of one module version; `detail` names the line and what is wrong. */
export class RecordError extends Error {}

/** The longest record taken: far beyond two lines of the longest module path Go allows. */
export const MAX_RECORD_BYTES = 4096;

const HASH = /^h1:([A-Za-z0-9+/]{43}=)$/;

/** The key the database looks a module version up by. */
export function recordKey(path: string, version: string): string {
  return `${path}@${version}`;
}

function checkLine(line: string, n: number, suffix: string): { path: string; version: string } {
  const fields = line.split(' ');
  if (fields.length !== 3)
    throw new RecordError(`line ${n}: expected "<module> <version>${suffix} h1:<hash>", three fields separated by single spaces`);
  const [path, version, hash] = fields as [string, string, string];
  if (!version.endsWith(suffix)) throw new RecordError(`line ${n}: the version must end in "${suffix}"`);
  const v = version.slice(0, version.length - suffix.length);
  if (suffix === '' && v.endsWith('/go.mod'))
    throw new RecordError(`line ${n}: expected the module's hash, not the go.mod's (that is line 2)`);
  try {
    checkModuleVersion(path, v);
  } catch (err) {
    if (err instanceof ModuleError) throw new RecordError(`line ${n}: ${path}: ${err.message}`);
    throw err;
  }
  const h = HASH.exec(hash);
  if (h === null || Buffer.from(h[1]!, 'base64').toString('base64') !== h[1])
    throw new RecordError(`line ${n}: the hash must be "h1:" and the standard padded base64 of 32 bytes`);
  return { path, version: v };
}

/** Parses a record's text strictly; throws RecordError naming the line at fault. */
export function parseRecord(text: string): SumRecord {
  // eslint-disable-next-line no-control-regex -- control characters are what a record may not hold
  if (/[\u0000-\u0009\u000b-\u001f\u007f]/.test(text))
    throw new RecordError('the record holds a control character (lines end in "\\n" alone)');
  if (!text.endsWith('\n')) throw new RecordError('the record must end with a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length !== 2) throw new RecordError(`expected 2 lines (the module's and its go.mod's), got ${lines.length}`);
  const a = checkLine(lines[0]!, 1, '');
  const b = checkLine(lines[1]!, 2, '/go.mod');
  if (a.path !== b.path || a.version !== b.version) throw new RecordError('line 2: names another module version than line 1');
  return { path: a.path, version: a.version, text };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The record in a request body's bytes: UTF-8 text parsed by parseRecord. */
export function recordFromBytes(bytes: Uint8Array): SumRecord {
  if (bytes.length === 0) throw new RecordError("the body is empty: send the record's two lines as text");
  if (bytes.length > MAX_RECORD_BYTES) throw new RecordError(`the record is over ${MAX_RECORD_BYTES} bytes`);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new RecordError('the record is not UTF-8 text');
  }
  return parseRecord(text);
}
