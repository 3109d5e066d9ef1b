// What a receipt or review counts on its claim, as the explorer marks it in the lists that show
// them: the record's own words (lib/record/numbers/counting.ts, docs/credence.md#what-a-write-counts),
// the same as the JSON reads carry.
import { escapeMarkup as h } from '../../lib/protocol/markup.js';
import type { Counting } from '../../lib/record/numbers/index.js';

/** The mark of an item in a list: whether it counts, the rule when one applies, and its sentence. */
export function countsMark(c: Counting): string {
  const text =
    c.note === undefined
      ? 'counts in full, towards credence and status'
      : `${c.counts ? 'counts' : 'counts nothing'}, ${c.note.rule}: ${c.note.detail}`;
  return `<small class="${c.counts ? 'counts' : 'uncounted'}" data-rule="${h(c.note?.rule ?? '')}">${h(text)}</small>`;
}
