// Screening of papers and challenges: the rule set kept as `screening.json` in the data directory, matched against every text
// field of a payload; the strongest action of the rules that match decides. Policy, not protocol: docs/stewardship.md#screening.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from 'tlog-engine';
import { outOfView } from '../protocol/errors.js';
import { eachText, type WriteType } from '../record/types/index.js';

export const SCREENING_FILE = 'screening.json';
export const ACTIONS = ['refer', 'hold', 'refuse'] as const;
export type ScreeningAction = (typeof ACTIONS)[number];

export interface Rule {
  id: string;
  action: ScreeningAction;
  /** A regular expression (JavaScript syntax), matched case-insensitively. */
  pattern: string;
  /** Why, in words: logged with a referral or hold, and told to the writer. */
  reason: string;
}

export interface Screening {
  rules: Rule[];
  /** The compiled patterns, in the order of `rules`. */
  compiled: RegExp[];
}

export type Verdict = { action: 'pass' } | { action: ScreeningAction; rule: string; reason: string };

/** The rules a deployment starts with. Edit `<data>/screening.json` to change them. */
export const DEFAULT_RULES: readonly Rule[] = Object.freeze([
  {
    id: 'private-key',
    action: 'refuse',
    pattern: '-----BEGIN [A-Z ]*PRIVATE KEY-----',
    reason: 'contains private key material; a log that cannot forget must never hold it',
  },
  {
    id: 'access-token',
    action: 'refuse',
    pattern: '\\b(AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|sk-[A-Za-z0-9_-]{32,}|xox[abpr]-[A-Za-z0-9-]{10,})\\b',
    reason: 'contains what looks like an access token; a log that cannot forget must never hold it',
  },
  {
    id: 'pathogen-enhancement',
    action: 'hold',
    pattern:
      '\\b(gain[- ]of[- ]function|enhanc\\w*\\s+(the\\s+)?(transmissibility|virulence|lethality)|' +
      'aerosoli[sz]\\w*\\s+(of\\s+)?(anthrax|smallpox|variola|ricin|botulinum))',
    reason: 'may describe enhancing a pathogen: a hazard hold (R1) until the operator decides',
  },
  {
    id: 'chemical-weapon-synthesis',
    action: 'hold',
    pattern:
      '\\b(synthes\\w*|production|precursors?)\\s+(route\\s+)?(of|for|to)\\s+(sarin|soman|tabun|vx|novichok|sulfur mustard|mustard gas)\\b',
    reason: 'may describe making a chemical weapon: a hazard hold (R1) until the operator decides',
  },
  {
    id: 'personal-data',
    action: 'refer',
    pattern: '([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}|\\b\\d{3}-\\d{2}-\\d{4}\\b)',
    reason: 'contains what looks like an e-mail address or an identity number: referred to the stewards',
  },
]);

const ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Checks a parsed rule set; throws an Error naming the rule and member at fault. */
export function compileScreening(value: unknown, what = SCREENING_FILE): Screening {
  const v = value as { rules?: unknown };
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !Array.isArray(v.rules))
    throw new Error(`${what}: expected {"rules": [...]}`);
  for (const k of Object.keys(v)) if (k !== 'rules') throw new Error(`${what}: unexpected member ${JSON.stringify(k)}`);
  const seen = new Set<string>();
  const rules = v.rules.map((item: unknown, i: number): Rule => {
    const at = `${what}: rules[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new Error(`${at}: expected {id, action, pattern, reason}`);
    const r = item as { id?: unknown; action?: unknown; pattern?: unknown; reason?: unknown };
    for (const k of Object.keys(r))
      if (!['id', 'action', 'pattern', 'reason'].includes(k)) throw new Error(`${at}: unexpected member ${JSON.stringify(k)}`);
    if (typeof r.id !== 'string' || !ID.test(r.id)) throw new Error(`${at}.id: lowercase letters, digits and -, 1 to 64`);
    if (seen.has(r.id)) throw new Error(`${at}.id: ${r.id} is used twice`);
    seen.add(r.id);
    if (!ACTIONS.includes(r.action as ScreeningAction)) throw new Error(`${at}.action: one of ${ACTIONS.join(', ')}`);
    if (typeof r.pattern !== 'string' || r.pattern === '') throw new Error(`${at}.pattern: a regular expression`);
    try {
      new RegExp(r.pattern, 'iu');
    } catch (err) {
      throw new Error(`${at}.pattern: ${(err as Error).message}`);
    }
    if (typeof r.reason !== 'string' || r.reason.length < 10 || r.reason.length > 300)
      throw new Error(`${at}.reason: 10 to 300 characters`);
    return { id: r.id, action: r.action as ScreeningAction, pattern: r.pattern, reason: r.reason };
  });
  return { rules, compiled: rules.map((r) => new RegExp(r.pattern, 'iu')) };
}

/** The deployment's rules: `<dataDir>/screening.json`, written with the defaults when missing. */
export function loadScreening(dataDir: string): Screening {
  const file = join(dataDir, SCREENING_FILE);
  let text = readIfThere(file);
  // Missing, or empty (an older version killed while writing it on first start): written with
  // the defaults, atomically (docs/protocol.md, "First start").
  if (text === null || text === '') {
    if (text === '') console.error(`archive: ${file} is empty (a first start was cut short): writing the default rules`);
    text = JSON.stringify({ rules: DEFAULT_RULES }, null, 2) + '\n';
    writeFileAtomicSync(file, text);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not JSON: ${(err as Error).message}`);
  }
  return compileScreening(parsed, file);
}

function readIfThere(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

const STRENGTH: Record<ScreeningAction, number> = { refer: 1, hold: 2, refuse: 3 };

/** What screening says of a payload of `type` (a type its descriptor says is screened: a paper, a challenge proposal). */
export function screen(s: Screening, type: WriteType, payload: object): Verdict & { field?: string } {
  const fields: [string, string][] = [];
  eachText(type, payload, (path, text) => {
    fields.push([path, text]);
    return false; // read, never changed
  });
  let best: (Verdict & { field?: string }) | null = null;
  s.rules.forEach((r, i) => {
    if (best !== null && best.action !== 'pass' && STRENGTH[best.action] >= STRENGTH[r.action]) return;
    const hit = fields.find(([, text]) => s.compiled[i]!.test(text));
    if (hit !== undefined) best = { action: r.action, rule: r.id, reason: r.reason, field: hit[0] };
  });
  return best ?? { action: 'pass' };
}

/** 451 for a refusal: nothing is kept. */
export function refusal(v: { rule: string; reason: string; field?: string }) {
  return outOfView(`${v.field ?? 'payload'}: refused by screening rule ${v.rule}: ${v.reason}; nothing was kept`);
}
