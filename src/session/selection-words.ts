/**
 * Turning free text into comparable words, for matching a problem against what agents say
 * they can do, and names against nicks. Deliberately simple and predictable (no dictionary, no locale): the same text
 * always gives the same words, so selection can be explained and tested.
 */

/** A word of the text as written (lower-cased) and the stem it is compared by. */
export interface Word {
  text: string;
  stem: string;
}

/**
 * Words that carry no signal about which agent fits: grammar, question words ("what" is in
 * nearly every question, so it cannot point at entity discovery), and the words of the
 * domain itself ("problem", "agent") that every profile and request contains.
 */
const STOP_WORDS = new Set(
  (
    "a an the and or but nor of to for in on at by with from into onto over under about as than then so if " +
    "is are was were be been being am do does did doing done has have had having can could should would will shall may might must " +
    "i me my we us our you your he she it its they them their this that these those there here " +
    "what which who whom whose when where why how whether " +
    "not no yes all any some each every both either neither other another such same own " +
    "very too also just only more most less least much many few " +
    "please need needs want wants like make get let help solve find use using used " +
    "identify identifies determine decide figure work out give take takes list show tell " +
    "problem problems agent agents tool tools task tasks way ways thing something anything"
  ).split(" "),
);

/** At most this many words of a text are considered; problems are a sentence or a paragraph. */
const MAX_WORDS = 400;

/** The words of `text` that may carry meaning, in order, stop words removed. */
export function wordsOf(text: string): Word[] {
  const out: Word[] = [];
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (out.length >= MAX_WORDS) break;
    if (STOP_WORDS.has(raw) || raw.length < 2) continue;
    const stem = stemOf(raw);
    if (stem.length < 2 || STOP_WORDS.has(stem)) continue;
    out.push({ text: raw, stem });
  }
  return out;
}

/** The set of stems of a text. */
export function stemsOf(text: string): Set<string> {
  return new Set(wordsOf(text).map((w) => w.stem));
}

/**
 * A light suffix-stripper: plurals, -ing, -ed, and a final -e, so that "plans", "planning",
 * "planned" and "plan" meet, and "schedule"/"scheduling" meet. Both sides of every comparison
 * go through it, so its occasional odd stem ("rul") never matters.
 */
export function stemOf(word: string): string {
  let w = word.toLowerCase();
  if (w.length <= 3) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(ss|us|is)$/.test(w)) {
    /* "class", "status", "analysis" are not plurals */
  } else if (/(s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s")) w = w.slice(0, -1);

  if (w.endsWith("ing") && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length > 4) w = undouble(w.slice(0, -2));

  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** "plann" → "plan", "stopp" → "stop"; but "fill", "pass", "buzz" keep their double letters. */
function undouble(w: string): string {
  const last = w[w.length - 1];
  if (w.length > 3 && last === w[w.length - 2] && last !== undefined && !"lsz".includes(last)) return w.slice(0, -1);
  return w;
}

/** `modelsActions` → "models actions", `ModelFirstRDF` → "model first rdf", `MfrSemantic` → "mfr semantic". */
export function humanise(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/[-_]+/g, " ")
    .trim()
    .toLowerCase();
}
