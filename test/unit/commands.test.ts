import { describe, expect, it } from "vitest";
import { COMMANDS, parseCommand } from "../../src/commands/parse.js";
import { helpText } from "../../src/commands/help-text.js";

const room = { nick: "Coordinator", direct: false };
const direct = { nick: "Coordinator", direct: true };

describe("parseCommand", () => {
  it("recognises each command word at the start of a room message", () => {
    expect(parseCommand("mfr-start Plan a trip to Rome", room)).toEqual({ command: { name: "start", problem: "Plan a trip to Rome" } });
    expect(parseCommand("start plan a trip", room)).toEqual({ command: { name: "start", problem: "plan a trip" } });
    expect(parseCommand("debate Which route?", room)).toEqual({ command: { name: "debate", problem: "Which route?" } });
    expect(parseCommand("Q: Which route?", room)).toEqual({ command: { name: "debate", problem: "Which route?" } });
    expect(parseCommand("mfr-status", room)).toEqual({ command: { name: "status", sessionId: undefined } });
    expect(parseCommand("mfr-status mfr-3kq9", room)).toEqual({ command: { name: "status", sessionId: "mfr-3kq9" } });
    expect(parseCommand("mfr-list", room)).toEqual({ command: { name: "list" } });
    expect(parseCommand("MFR-LIST", room)).toEqual({ command: { name: "list" } });
    expect(parseCommand("mfr-cancel abc", room)).toEqual({ command: { name: "cancel", sessionId: "abc" } });
    expect(parseCommand("help", room)).toEqual({ command: { name: "help" } });
    expect(parseCommand("mfr-help", room)).toEqual({ command: { name: "help" } });
    expect(parseCommand("use 1,3", room)).toEqual({ command: { name: "use", choice: [1, 3] } });
    expect(parseCommand("use all", room)).toEqual({ command: { name: "use", choice: "all" } });
    expect(parseCommand("approve s1", room)).toEqual({ command: { name: "approve", sessionId: "s1" } });
  });

  it("accepts the coordinator's nick followed by : or ,", () => {
    expect(parseCommand("Coordinator: help", room)).toEqual({ command: { name: "help" } });
    expect(parseCommand("coordinator, mfr-list", room)).toEqual({ command: { name: "list" } });
    expect(parseCommand("Coordinator help", room)).toEqual({ notACommand: true });
  });

  it("ignores ordinary chatter in the room", () => {
    for (const chatter of ["hello everyone", "helpful idea", "starting now", "use the force", "help me with this", "agents are great", "I said mfr-list"]) {
      expect(parseCommand(chatter, room), chatter).toEqual({ notACommand: true });
    }
  });

  it("answers a known command word with wrong arguments with its usage", () => {
    expect(parseCommand("mfr-start", room)).toEqual({ misuse: { name: "start", usage: "mfr-start <problem>" } });
    expect(parseCommand("mfr-cancel", room)).toMatchObject({ misuse: { name: "cancel" } });
    expect(parseCommand("mfr-status <bad id!>", room)).toMatchObject({ misuse: { name: "status" } });
  });

  it("in 1:1 chat a loose word without arguments is still a command attempt", () => {
    expect(parseCommand("use", direct)).toMatchObject({ misuse: { name: "use" } });
    expect(parseCommand("help me", direct)).toEqual({ command: { name: "help" } });
  });
});

describe("helpText", () => {
  it("lists every command and marks the unavailable ones", () => {
    const text = helpText("Coordinator", new Set(["help", "list"]));
    for (const c of COMMANDS) expect(text).toContain(c.usage);
    const startLine = text.split("\n").find((l) => l.includes("mfr-start"));
    expect(startLine).toContain("(not yet available)");
    const listLine = text.split("\n").find((l) => l.includes("mfr-list"));
    expect(listLine).not.toContain("not yet available");
  });
});

describe("unknown commands said to the coordinator", () => {
  const room = { nick: "Coordinator", direct: false };
  const direct = { nick: "Coordinator", direct: true };

  it("addressed in the room or in 1:1 chat, gets the word and what it most resembles", () => {
    expect(parseCommand("Coordinator: mfr-statsu", room)).toEqual({ unknown: { word: "mfr-statsu", suggestion: "mfr-status" } });
    expect(parseCommand("status amber-fox-42", direct)).toEqual({ unknown: { word: "status", suggestion: "mfr-status" } });
    expect(parseCommand("hepl", direct)).toEqual({ unknown: { word: "hepl", suggestion: "help" } });
    expect(parseCommand("Coordinator, frobnicate now", room)).toEqual({ unknown: { word: "frobnicate", suggestion: undefined } });
  });

  it("in 1:1 chat a bare tail, or a typo of one, means its mfr- command; a word near none gets no guess", () => {
    expect(parseCommand("stauts", direct)).toEqual({ unknown: { word: "stauts", suggestion: "mfr-status" } });
    expect(parseCommand("lsit", direct)).toEqual({ unknown: { word: "lsit", suggestion: "mfr-list" } });
    // `help` is four letters: one edit from it is a guess, two (`hello`) is not.
    expect(parseCommand("hello", direct)).toEqual({ unknown: { word: "hello", suggestion: undefined } });
    // The punctuation after a word in a sentence is not part of the word quoted back.
    expect(parseCommand("hello, what can you do?", direct)).toEqual({ unknown: { word: "hello", suggestion: undefined } });
  });

  it("in the room, a line starting with a misspelt command word is answered like one said to the coordinator", () => {
    expect(parseCommand("mfr-statsu", room)).toEqual({ unknown: { word: "mfr-statsu", suggestion: "mfr-status" } });
    expect(parseCommand("mfr-strat test problem", room)).toEqual({ unknown: { word: "mfr-strat", suggestion: "mfr-start" } });
    expect(parseCommand("hepl", room)).toEqual({ unknown: { word: "hepl", suggestion: "help" } });
    expect(parseCommand("mfr-frobnicate", room)).toEqual({ unknown: { word: "mfr-frobnicate", suggestion: undefined } });
  });

  it("room chatter that is not a misspelt command stays chatter", () => {
    for (const chatter of ["hello everyone", "frobnicate now", "agent smith is here", "lost my keys", "stars are out", "I think mfr-status is broken", "mfr is the method"]) {
      expect(parseCommand(chatter, room), chatter).toEqual({ notACommand: true });
    }
  });
});
