// HTML escaped by default: every page is written with the `html` tag, which escapes each value placed in it unless it is `Html`;
// `raw` is the one way to make `Html` from a string, kept for text that is markup by construction (docs/api.md#the-explorer).
// Only this module (and the Markdown renderer, the Atom feeds) may call escapeMarkup (lint rule).
import { escapeMarkup } from '../../lib/protocol/markup.js';

/** Markup made by `html` or `raw`: the class is not exported, so nothing else can make one. */
class Markup {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  /** The markup as text, to send. */
  toString(): string {
    return this.#text;
  }
}

export type Html = Markup;

/** What a value placed in `html` may be: text and numbers are escaped, markup and lists of it kept. */
export type HtmlValue = Html | string | number | readonly (Html | string | number)[];

const text = (v: Html | string | number): string => (v instanceof Markup ? v.toString() : escapeMarkup(String(v)));
const piece = (v: HtmlValue): string =>
  Array.isArray(v) ? (v as readonly (Html | string | number)[]).map(text).join('') : text(v as Html);

/** A piece of HTML: the template's own text as written, each value escaped unless it is `Html`. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) {
    out += piece(values[i]!) + strings[i + 1]!;
  }
  return new Markup(out);
}

/** Pieces of HTML one after the other, `sep` (escaped unless `Html`) between them. */
export function join(parts: readonly (Html | string | number)[], sep: Html | string = ''): Html {
  return new Markup(parts.map(text).join(text(sep)));
}

/** Nothing: a part of a page left out. */
export const empty: Html = new Markup('');

/** Whether a piece of HTML is empty. */
export const isEmpty = (h: Html): boolean => h.toString() === '';

/**
 * Text taken as markup as it stands, unescaped: only for text that is markup by construction,
 * never for anything read from the record or a request.
 */
export function raw(markup: string): Html {
  return new Markup(markup);
}
