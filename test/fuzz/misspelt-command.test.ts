/**
 * The room rule for misspelt commands (src/commands/misspelt-command.ts): a person who mistypes a
 * command is answered, a person talking to others never is, and the answer is always one
 * line the stanza can carry.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMMAND_WORDS } from "../../src/commands/command-words.js";
import { ENGLISH_NEIGHBOURS, misspeltCommand, suggestCommand } from "../../src/commands/misspelt-command.js";
import { parseCommand } from "../../src/commands/parse.js";
import { wording } from "../../src/inbound/wording.js";
import { editDistance } from "../../src/base/spelling.js";
import { ALL_FORBIDDEN, forbiddenCodePoints } from "../support/forbidden-chars.js";

const room = { nick: "MFR-Coordinator", direct: false };
const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** What may follow the first word: nothing, or a space and any text. */
const rest = fc.oneof(fc.constant(""), fc.string().map((s) => ` ${s}`));

/** One edit of `word`: a letter inserted, deleted or changed, or two neighbours swapped. */
function oneEdit(word: string): fc.Arbitrary<string> {
  const at = fc.nat({ max: word.length - 1 });
  const letter = fc.constantFrom(...LETTERS);
  return fc.oneof(
    fc.tuple(fc.nat({ max: word.length }), letter).map(([i, ch]) => word.slice(0, i) + ch + word.slice(i)),
    at.map((i) => word.slice(0, i) + word.slice(i + 1)),
    fc.tuple(at, letter).map(([i, ch]) => word.slice(0, i) + ch + word.slice(i + 1)),
    fc.nat({ max: word.length - 2 }).map((i) => word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2)),
  );
}

/** Far from every command word and from every `mfr-` command's tail. */
function farFromCommands(word: string): boolean {
  const forms = COMMAND_WORDS.flatMap((w) => (w.startsWith("mfr-") ? [w, w.slice(4)] : [w]));
  return !word.startsWith("mfr-") && forms.every((f) => editDistance(word, f) > 2);
}

describe("misspeltCommand: which room lines are taken for a misspelt command", () => {
  it("a real command word, in any case and with anything after it, is never a misspelling", () => {
    const typed = fc.tuple(fc.constantFrom(...COMMAND_WORDS), fc.boolean()).map(([w, upper]) => (upper ? w.toUpperCase() : w));
    fc.assert(
      fc.property(typed, rest, (word, after) => {
        expect(misspeltCommand(`${word}${after}`)).toBeUndefined();
      }),
      { numRuns: 1000 },
    );
  });

  it("one edit of a command word of five letters or more yields a command at least as near, unless the edit is an English word", () => {
    const edited = fc
      .constantFrom(...COMMAND_WORDS.filter((w) => w.length >= 5))
      .chain((word) => oneEdit(word).map((typo) => ({ word, typo })))
      .filter(({ typo }) => !COMMAND_WORDS.includes(typo) && !ENGLISH_NEIGHBOURS.has(typo));
    fc.assert(
      fc.property(edited, rest, ({ word, typo }, after) => {
        const found = misspeltCommand(`${typo}${after}`);
        expect(found?.word).toBe(typo);
        expect(COMMAND_WORDS).toContain(found?.suggestion);
        expect(editDistance(typo, found?.suggestion ?? "")).toBeLessThanOrEqual(editDistance(typo, word));
      }),
      { numRuns: 2000 },
    );
  });

  it("a swap of two neighbouring letters of help or use yields it (but sue is English)", () => {
    expect(misspeltCommand("hepl")?.suggestion).toBe("help");
    expect(misspeltCommand("ehlp me")?.suggestion).toBe("help");
    expect(misspeltCommand("ues 1,3")?.suggestion).toBe("use");
    expect(misspeltCommand("sue them")).toBeUndefined();
  });

  it("mfr- and any word is a command attempt, answered with or without a guess", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z][a-z0-9]{0,20}$/), rest, (tail, after) => {
        const word = `mfr-${tail}`;
        fc.pre(!COMMAND_WORDS.includes(word));
        const found = misspeltCommand(`${word}${after}`);
        expect(found?.word).toBe(word);
        if (found?.suggestion !== undefined) expect(editDistance(word, found.suggestion)).toBeLessThanOrEqual(2);
      }),
      { numRuns: 1000 },
    );
  });

  it("a line whose first word is near no command word is never answered", () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9_-]{0,15}$/).filter(farFromCommands);
    fc.assert(
      fc.property(word, rest, (first, after) => {
        expect(misspeltCommand(`${first}${after}`)).toBeUndefined();
        expect(parseCommand(`${first}${after}`, room)).toEqual({ notACommand: true });
      }),
      { numRuns: 2000 },
    );
  });

  it("a command word, or a misspelt one, only in the middle of a line is never answered", () => {
    const opening = fc.constantFrom("I think", "maybe", "why is", "ok so", "the", "hello, is", "@alice");
    const middle = fc.oneof(fc.constantFrom(...COMMAND_WORDS), fc.constantFrom("mfr-stauts", "hepl", "mfr-frobnicate", "strat"));
    fc.assert(
      fc.property(opening, middle, rest, (first, word, after) => {
        expect(misspeltCommand(`${first} ${word}${after}`)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it("English words near a command word are conversation", () => {
    for (const english of [...ENGLISH_NEIGHBOURS, "hello", "held", "hell", "list", "lost", "status", "us", "user", "agency", "improve", "state"]) {
      expect(misspeltCommand(`${english} and more`), english).toBeUndefined();
      expect(misspeltCommand(english), english).toBeUndefined();
    }
    expect(misspeltCommand("frobnicate now")).toBeUndefined();
  });
});

describe("the answer to an unknown or misspelt command", () => {
  const hostile = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constantFrom(ALL_FORBIDDEN, `mfr-${ALL_FORBIDDEN}`, "\uD800stauts", "x".repeat(500)));

  it("is one line, XML-safe, and quotes at most 30 characters of what was typed, in 1:1 chat and in the room", () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (body, direct) => {
        const parsed = parseCommand(body, { nick: "MFR-Coordinator", direct });
        if (!("unknown" in parsed)) return;
        const answer = wording.unknownCommand(parsed.unknown.word, parsed.unknown.suggestion);
        expect(answer).not.toMatch(/[\r\n]/);
        expect(forbiddenCodePoints(answer)).toEqual([]);
        expect(Array.from(answer).length).toBeLessThanOrEqual(120);
      }),
      { numRuns: 2000 },
    );
  });

  it("names the command in the words the task asks for", () => {
    expect(wording.unknownCommand("mfr-stauts", "mfr-status")).toBe('Unknown command "mfr-stauts"; did you mean mfr-status? Say "help" for the commands I know.');
    expect(wording.unknownCommand("mfr-frobnicate", undefined)).toBe('Unknown command "mfr-frobnicate". Say "help" for the commands I know.');
    expect(suggestCommand("stauts")).toBe("mfr-status");
  });
});
