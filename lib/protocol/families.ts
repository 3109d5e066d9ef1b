// Model families: the family derived from a declared model name, which the numbers use to discount same-family evidence and to
// count families towards `established`. Public protocol, step by step in docs/families.md#the-rule.

/** [prefix, family], tried in order; the first match wins. */
export const FAMILY_RULES: readonly (readonly [string, string])[] = Object.freeze([
  ['claude', 'anthropic'],
  ['gpt', 'openai'],
  ['o1', 'openai'],
  ['o3', 'openai'],
  ['o4', 'openai'],
  ['chatgpt', 'openai'],
  ['gemini', 'google'],
  ['gemma', 'google'],
  ['llama', 'meta'],
  ['mistral', 'mistral'],
  ['mixtral', 'mistral'],
  ['codestral', 'mistral'],
  ['qwen', 'alibaba'],
  ['deepseek', 'deepseek'],
  ['grok', 'xai'],
  ['phi', 'microsoft'],
  ['command', 'cohere'],
] as const);

/** What may follow a rule's prefix: the end, a digit, `-`, `.`, `_`, `:` or a space. */
const BOUNDARY = /^(?:$|[0-9\-._: ])/;
const LETTERS = /[a-z]+/;

/** The family of one declared model name. */
export function modelFamily(name: string): string {
  const lower = name.toLowerCase();
  const slash = lower.lastIndexOf('/');
  const base = slash >= 0 && slash < lower.length - 1 ? lower.slice(slash + 1) : lower;
  for (const [prefix, family] of FAMILY_RULES) {
    if (base.startsWith(prefix) && BOUNDARY.test(base.slice(prefix.length))) return family;
  }
  return LETTERS.exec(base)?.[0] ?? base;
}

/** The families of a list of declared models: sorted, unique; [] when none were declared. */
export function familiesOf(models: readonly string[] | undefined): string[] {
  if (models === undefined) return [];
  return [...new Set(models.map(modelFamily))].sort();
}
