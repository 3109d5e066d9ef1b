// Model families (docs/families.md#the-rule): the family derived from a declared model name, used
// to discount same-family evidence (credence/0.3) and to count families towards `established`.
// Public protocol: anyone recomputing the numbers from the log must derive the same family.
//
// The rule, step by step (docs/families.md):
// 1. Lower-case the name (String.prototype.toLowerCase; nothing is trimmed).
// 2. Drop an `org/` prefix: everything up to and including the LAST `/`. Hugging Face style
//    names have one (`meta-llama/llama-3-70b`); router paths nest more
//    (`openrouter/anthropic/claude-3.5-sonnet`), and the model is always the last segment.
//    If nothing is left (a name ending in `/`), the whole lower-cased name is kept.
// 3. The first rule in RULES whose name the result STARTS WITH, followed by a boundary: the
//    end of the name, a digit, or one of `-` `.` `_` `:` and space. So `claude-3.5-sonnet`,
//    `llama3.1`, `o1-mini`, `o3`, `phi-3`, `command-r-plus` match, while `olmo`, `phind`,
//    `commander` and `my-claude` do not (a rule never matches inside a name).
// 4. Otherwise the first run of letters a-z in the name (`phind-codellama` -> `phind`,
//    `olmo-7b` -> `olmo`); with no letters at all, the name from step 2 itself.

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
