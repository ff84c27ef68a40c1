/**
 * Names from the network are names like any other in the session core: an agent called
 * `valueOf`, `constructor` or `__proto__` contributes, is asked to fix what it owns, and is
 * counted, and nobody else is found where only it should be (records keyed by names have
 * no prototype: src/session/name-table.ts).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { copyNameTable, nameTable } from "../../src/session/name-table.js";
import { Driver, finding, ok, violating } from "../support/session-fixtures.js";

/** Every name Object.prototype answers to, and the one that sets a prototype. */
const PROTOTYPE_NAMES = [...Object.getOwnPropertyNames(Object.prototype), "__proto__"];
const agentName = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.constantFrom("alice", "bob"));

describe("names from the network in the session core", () => {
  it("a session whose agents carry Object.prototype's names runs its fix round with each of them, and only them, asked", () => {
    fc.assert(
      fc.property(fc.uniqueArray(agentName, { minLength: 1, maxLength: 4 }), fc.nat(), (agents, pick) => {
        const d = new Driver();
        d.start({ expectedAgents: agents });
        for (const agent of agents) d.advance(100).contribute("s1", agent);
        expect(Object.keys(d.session().contributions).sort()).toEqual([...agents].sort());
        const owner = agents[pick % agents.length]!;
        d.advance(500).answer("s1", ok(violating([finding({ agents: [owner] })])));
        expect(Object.keys(d.session().fixRequests)).toEqual([owner]);
        // Nobody who did not contribute is found among the contributions.
        for (const name of PROTOTYPE_NAMES.filter((n) => !agents.includes(n))) expect(Object.hasOwn(d.session().contributions, name)).toBe(false);
        expect(d.session().contributions[owner]).toBeDefined();
      }),
      { numRuns: 200 },
    );
  });

  it("a name table holds only what was put in, `__proto__` as a plain name", () => {
    const table = nameTable<number>([["__proto__", 1], ["valueOf", 2]]);
    expect(Object.keys(table).sort()).toEqual(["__proto__", "valueOf"]);
    expect(Object.hasOwn(table, "constructor") || "constructor" in table).toBe(false);
    expect(Object.getPrototypeOf(table)).toBeNull();
    const copy = copyNameTable(table);
    const name: string = "toString";
    copy[name] = 3;
    expect(Object.keys(table)).toHaveLength(2);
    expect(Object.keys(copy).sort()).toEqual(["__proto__", "toString", "valueOf"]);
  });
});
