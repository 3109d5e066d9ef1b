// Text placed in HTML or XML (the landing page, the explorer, the Atom feeds): the five
// characters that could end a text node or an attribute value, escaped.
export function escapeMarkup(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
