// Text placed in HTML or XML (the landing page, the explorer, the Atom feeds): the five
// characters that could end a text node or an attribute value, escaped.
const SPECIAL = /[&<>"']/;

export function escapeMarkup(s: string): string {
  // Most text placed in a page has none of them: one scan instead of five replaces.
  if (!SPECIAL.test(s)) return s;
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
