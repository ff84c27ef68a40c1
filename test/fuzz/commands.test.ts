/**
 * Anyone in the room can type anything: parseCommand must classify every body as a command,
 * a misuse or chatter, and what it calls a command must carry well-formed arguments.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMMANDS, parseCommand, type ParseResult } from "../../src/commands/parse.js";
import { misspeltCommand } from "../../src/commands/misspelt-command.js";

const NICK = "MFR-Coordinator";
const WORDS = COMMANDS.flatMap((spec) => spec.words.map((word) => ({ word, name: spec.name })));
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}$/;

/** The contract of the parser, whatever went in. */
function expectWellFormed(result: ParseResult): void {
  if ("notACommand" in result) {
    expect(result.notACommand).toBe(true);
    return;
  }
  if ("misuse" in result) {
    expect(COMMANDS.find((c) => c.name === result.misuse.name)?.usage).toBe(result.misuse.usage);
    return;
  }
  if ("unknown" in result) {
    expect(result.unknown.word.length).toBeGreaterThan(0);
    expect(Array.from(result.unknown.word).length).toBeLessThanOrEqual(30);
    if (result.unknown.suggestion !== undefined) expect(WORDS.map((w) => w.word)).toContain(result.unknown.suggestion);
    return;
  }
  const command = result.command;
  switch (command.name) {
    case "start":
    case "debate":
      expect(command.problem.length).toBeGreaterThan(0);
      expect(command.problem).toBe(command.problem.trim());
      break;
    case "status":
      if (command.sessionId !== undefined) expect(command.sessionId).toMatch(SESSION_ID);
      break;
    case "cancel":
    case "approve":
    case "reject":
      expect(command.sessionId).toMatch(SESSION_ID);
      break;
    case "use":
      if (command.choice !== "all") {
        expect(command.choice.length).toBeGreaterThan(0);
        expect(new Set(command.choice).size).toBe(command.choice.length);
        for (const n of command.choice) expect(Number.isInteger(n) && n >= 1 && n <= 999).toBe(true);
      }
      break;
    case "list":
    case "agents":
    case "help":
      break;
  }
}

/** A command word as people type it: any mix of upper and lower case. */
const typedWord = fc.constantFrom(...WORDS).chain(({ word, name }) =>
  fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((upper) => ({
    name,
    typed: [...word].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch)).join(""),
  })),
);
const argument = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom("all", "1,3", "1 2 3", "0", "999,1000", "s-2024-01-01-abc", "mfr-20240101-0001", "a".repeat(81), "x y", ""),
  fc.stringMatching(/^[A-Za-z0-9_.:-]{1,90}$/),
  fc.stringMatching(/^\d{1,4}([ ,]{1,2}\d{1,4}){0,5}$/),
);
const whitespace = fc.constantFrom(" ", "  ", "\t", "\n", " \r\n ");
const address = fc.constantFrom("", `${NICK}: `, `${NICK.toLowerCase()},`, `  ${NICK}:`);

describe("parseCommand is total (fuzz)", () => {
  it("on arbitrary bodies, nicks and chat kinds", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" })), fc.string({ maxLength: 12 }), fc.boolean(), (body, nick, direct) => {
        expectWellFormed(parseCommand(body, { nick, direct }));
      }),
      { numRuns: 2000 },
    );
  });

  it("on a command word with any arguments: never chatter when typed directly or addressed", () => {
    fc.assert(
      fc.property(address, typedWord, whitespace, argument, fc.boolean(), (prefix, { name, typed }, gap, args, direct) => {
        const result = parseCommand(`${prefix}${typed}${gap}${args}`, { nick: NICK, direct });
        expectWellFormed(result);
        if (direct || prefix !== "") {
          expect("notACommand" in result).toBe(false);
          expect("command" in result ? result.command.name : "misuse" in result ? result.misuse.name : undefined).toBe(name);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("on a command word glued to any text", () => {
    fc.assert(
      fc.property(address, typedWord, fc.string(), fc.string({ maxLength: 12 }), fc.boolean(), (prefix, { typed }, rest, nick, direct) => {
        expectWellFormed(parseCommand(`${prefix}${typed}${rest}`, { nick, direct }));
      }),
      { numRuns: 1000 },
    );
  });

  it("on room chatter that starts with no command word, no misspelt one and no address: not a command", () => {
    const chatter = fc.string().filter((body) => {
      const text = body.trim().toLowerCase();
      return !WORDS.some(({ word }) => text.startsWith(word)) && !text.startsWith(NICK.toLowerCase()) && misspeltCommand(body) === undefined;
    });
    fc.assert(
      fc.property(chatter, (body) => {
        expect(parseCommand(body, { nick: NICK, direct: false })).toEqual({ notACommand: true });
      }),
      { numRuns: 1000 },
    );
  });
});
