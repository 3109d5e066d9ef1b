// What a receipt or review counts on its claim, as the explorer marks it in the lists that show
// them: the record's own words (lib/record/numbers/counting.ts, docs/credence.md#what-a-write-counts),
// the same as the JSON reads carry.
import { html, type Html } from './html.js';
import type { Counting } from '../../lib/record/numbers/index.js';

/** The mark of an item in a list: whether it counts, the rule when one applies, and its sentence. */
export function countsMark(c: Counting): Html {
  const text =
    c.note === undefined
      ? 'counts in full, towards credence and status'
      : `${c.counts ? 'counts' : 'counts nothing'}, ${c.note.rule}: ${c.note.detail}`;
  return html`<small class="${c.counts ? 'counts' : 'uncounted'}" data-rule="${c.note?.rule ?? ''}">${text}</small>`;
}
