// Payload files for the CLI: the operation's members only (no protocol, type, agent or ts), as
// YAML (`.yaml`, `.yml`) or strict JSON (anything else). Both are held to the rules of signed
// bytes (docs/protocol.md): duplicate member names, lone surrogates and numbers that are
// not finite are refused, never "fixed", so what is signed is what the file says.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { assertJson } from '../protocol/canonical-json.js';
import { isArchiveError } from '../protocol/errors.js';
import { parseJson } from '../protocol/strict-json.js';

export type PayloadFormat = 'json' | 'yaml';

/** YAML for `.yaml` and `.yml` (any case), JSON otherwise. */
export function formatOf(path: string): PayloadFormat {
  const ext = extname(path).toLowerCase();
  return ext === '.yaml' || ext === '.yml' ? 'yaml' : 'json';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses the members in `text`; `what` (the file name) begins every error message. */
export function parsePayloadText(text: string, format: PayloadFormat, what = 'payload'): Record<string, unknown> {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a byte-order mark is encoding, not content
  let value: unknown;
  try {
    value = format === 'yaml' ? parseYaml(text, what) : parseJson(text, what);
    assertJson(value, what);
  } catch (err) {
    throw new Error(isArchiveError(err) ? err.detail : (err as Error).message);
  }
  if (!isObject(value)) {
    throw new Error(
      `${what}: expected an object of the operation's members, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Reads and parses the payload file at `path` (format by its extension). */
export async function readPayloadFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read payload file ${path}: ${(err as Error).message}`);
  }
  return parsePayloadText(text, formatOf(path), path);
}

/** Exactly one YAML 1.2 document, core schema, unique keys, no merge keys; any error or warning refuses it. */
function parseYaml(text: string, what: string): unknown {
  const docs = parseAllDocuments(text, OPTIONS);
  if (!Array.isArray(docs) || docs.length === 0) throw new Error(`${what}: empty YAML; expected the operation's members`);
  if (docs.length > 1) throw new Error(`${what}: ${docs.length} YAML documents; expected one`);
  const doc = docs[0]!;
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem !== undefined) throw new Error(`${what}: invalid YAML (${problem.message.split('\n')[0]!.replace(/:$/, '')})`);
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new Error(`${what}: invalid YAML (${(err as Error).message})`);
  }
}

const OPTIONS = {
  version: '1.2',
  schema: 'core',
  uniqueKeys: true,
  merge: false,
  strict: true,
  prettyErrors: true,
  logLevel: 'silent',
} as const;
