/**
 * A model's parts are built one by one as the host sends them (`renderEffects` gives
 * stanzas that are built when first read). What goes on the wire must be byte for byte
 * what building every stanza at once (`protocolStanzas`) gives, in every room, in the same
 * order, whether the split was worked out ahead in the worker or not.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { splitsAhead } from "../../src/protocol/model-parts.js";
import { protocolStanzas } from "../../src/protocol/outbound.js";
import { forgetSplits, rememberSplits } from "../../src/protocol/split-memo.js";
import { sessionBaseIri } from "../../src/base/vocab.js";
import { renderEffects, roomsFor, solutionRequestSplitKeys, type RenderContext } from "../../src/host/outgoing.js";
import type { Broadcast, Effect } from "../../src/session/step-io.js";

const SESSION = "amber-fox-42";
const BASE = sessionBaseIri(SESSION);
const AT = 1_700_000_000_000;
const BODY = "Solve it.";

/** A model with literals that need escaping (XML, and a control character Turtle escapes), non-ASCII text, and blank nodes. */
function model(subjects: number, seed: number): string {
  const lines = ["@prefix mfr: <http://purl.org/stuff/mfr/> .", "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."];
  for (let i = 0; i < subjects; i++) {
    const n = (i * 7919 + seed) % 1000;
    lines.push(`<${BASE}a${i}> a mfr:Action ; rdfs:label "act <${n}> & \\"go\\" é 🚚 \\u0001" ; mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "(< (load v${n}) 10)" ] ; mfr:hasEffect _:e${i} .`);
    lines.push(`_:e${i} a mfr:Effect ; mfr:expression "(at p${n})" .`);
  }
  return lines.join("\n") + "\n";
}

const request = (turtle: string): Broadcast => ({ type: "SolutionRequest", sessionId: SESSION, model: turtle });
const effects = (turtle: string): Effect[] => [{ kind: "say", room: "primary", text: "Validated." }, { kind: "broadcast", message: request(turtle), body: BODY }];

/** Every stanza built at once, room by room, as the host sent them before parts were built lazily. */
function eager(turtle: string, ctx: RenderContext): string[] {
  return roomsFor("SolutionRequest", ctx).flatMap(({ room }) => {
    const built = protocolStanzas(request(turtle), BODY, { room, now: AT, maxStanzaBytes: ctx.maxStanzaBytes, skolemBase: BASE });
    if (!built.ok) throw new Error(built.error);
    return built.stanzas.map((s) => s.toString());
  });
}

/** The stanzas `renderEffects` gives, read last part first (a build must not depend on what was built before it). */
function lazy(turtle: string, ctx: RenderContext): { wire: string[]; bulk: boolean[] } {
  const outgoing = renderEffects(SESSION, effects(turtle), AT, ctx).outgoing.slice(1);
  const wire = [...outgoing].reverse().map((o) => o.stanza.toString()).reverse();
  return { wire, bulk: outgoing.map((o) => o.bulk === true) };
}

const contexts = fc.record({ maxStanzaBytes: fc.integer({ min: 4096, max: 12_000 }), phaseRoom: fc.boolean(), subjects: fc.integer({ min: 1, max: 80 }), seed: fc.nat(1000) });
const contextOf = (c: { maxStanzaBytes: number; phaseRoom: boolean }): RenderContext => ({
  room: "mfr@conference.localhost",
  logRoom: undefined,
  maxStanzaBytes: c.maxStanzaBytes,
  ...(c.phaseRoom ? { phaseRooms: { reason: "reason-room-with-a-longer-name@conference.localhost" } } : {}),
});

describe("model parts built when they are sent", () => {
  let remembered: string[] = [];
  afterEach(() => {
    for (const t of remembered) forgetSplits(t);
    remembered = [];
  });

  it("are byte for byte the stanzas built at once, in every room and order, with or without a split made ahead", () => {
    fc.assert(
      fc.property(contexts, fc.boolean(), (c, ahead) => {
        const ctx = contextOf(c);
        const turtle = model(c.subjects, c.seed);
        if (ahead) {
          rememberSplits(turtle, splitsAhead(turtle, solutionRequestSplitKeys(SESSION, ctx)));
          remembered.push(turtle);
        }
        expect(lazy(turtle, ctx).wire).toEqual(eager(turtle, ctx));
      }),
      { numRuns: 40 },
    );
  });

  it("a model in parts: the parts are bulk, each room's SolutionRequest after them is not", () => {
    const ctx = contextOf({ maxStanzaBytes: 6000, phaseRoom: true });
    const turtle = model(60, 7);
    const { wire, bulk } = lazy(turtle, ctx);
    expect(wire).toEqual(eager(turtle, ctx));
    const requests = bulk.flatMap((b, i) => (b ? [] : [i]));
    expect(requests).toHaveLength(2);
    expect(requests.at(-1)).toBe(wire.length - 1);
    expect(wire[requests[0] as number]).toContain("modelParts");
  });

  it("a model that fits in one stanza goes as one SolutionRequest, not bulk", () => {
    const ctx = contextOf({ maxStanzaBytes: 64 * 1024, phaseRoom: false });
    const { wire, bulk } = lazy(model(2, 1), ctx);
    expect(wire).toEqual(eager(model(2, 1), ctx));
    expect(bulk).toEqual([false]);
  });
});
