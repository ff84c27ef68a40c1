/**
 * The web view's one way to write HTML. Every value put into a page goes through
 * `escapeHtml` (agents' names, problem texts and literals are untrusted); only fragments
 * built by the `html` template itself are taken as markup, so escaping cannot be forgotten.
 */

/** Markup made by `html` (or `escapeHtml`): safe to place in a page as it is. */
export class Html {
  /** Only this module makes Html, so a string cannot pass for markup by accident. */
  private constructor(readonly markup: string) {}

  static trusted(markup: string): Html {
    return new Html(markup);
  }

  toString(): string {
    return this.markup;
  }
}

const ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text as HTML: the five characters that could open markup or leave an attribute value become entities. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** What may be placed into the template: text and numbers are escaped, Html is kept, lists are joined. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.markup;
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value as string | number | boolean));
}

/** `html\`<td>${name}</td>\``: the literal parts are markup, every interpolated value is escaped. */
export function html(parts: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = parts[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + (parts[i + 1] ?? "");
  });
  return Html.trusted(out);
}
