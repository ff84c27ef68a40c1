/**
 * The model worker splits the model ahead of the SolutionRequest (protocol/split-memo.ts);
 * what goes on the wire must be byte for byte what rendering on the main thread gives, in
 * every room, and the split worked out ahead must be the one rendering looks up.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { splitsAhead } from "../../src/protocol/model-parts.js";
import { forgetSplits, rememberSplits } from "../../src/protocol/split-memo.js";
import { renderEffects, solutionRequestSplitKeys, type RenderContext } from "../../src/host/outgoing.js";
import type { Effect } from "../../src/session/step-io.js";

const SESSION = "amber-fox-42";
const BASE = `http://purl.org/stuff/mfr/${SESSION}/`;

/** A model with IRIs, literals that need escaping, and blank nodes (labelled and anonymous). */
function model(subjects: number, seed: number): string {
  const lines = ["@prefix mfr: <http://purl.org/stuff/mfr/> .", "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."];
  for (let i = 0; i < subjects; i++) {
    const n = (i * 7919 + seed) % 1000;
    lines.push(`<${BASE}a${i}> a mfr:Action ; rdfs:label "act <${n}> & \\"go\\" é" ; mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "(< (load v${n}) 10)" ] ; mfr:hasEffect _:e${i} .`);
    lines.push(`_:e${i} a mfr:Effect ; mfr:expression "(at p${n})" .`);
  }
  return lines.join("\n") + "\n";
}

function solutionRequest(turtle: string): Effect[] {
  return [{ kind: "broadcast", message: { type: "SolutionRequest", sessionId: SESSION, model: turtle }, body: "Solve it." }];
}

const rendered = (turtle: string, ctx: RenderContext): string[] => renderEffects(SESSION, solutionRequest(turtle), 1_700_000_000_000, ctx).outgoing.map((o) => `${o.what} ${o.stanza.toString()}`);

const contexts = fc.record({
  maxStanzaBytes: fc.integer({ min: 4096, max: 12_000 }),
  phaseRoom: fc.boolean(),
});

describe("the model split ahead in the worker", () => {
  let remembered: string[] = [];
  afterEach(() => {
    for (const t of remembered) forgetSplits(t);
    remembered = [];
  });

  it("sends exactly the stanzas the main thread would, in every room", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 120 }), fc.nat(), contexts, (subjects, seed, c) => {
        const turtle = model(subjects, seed);
        const ctx: RenderContext = { room: "mfr@conference.example.org", logRoom: undefined, maxStanzaBytes: c.maxStanzaBytes, ...(c.phaseRoom ? { phaseRooms: { reason: "mfr-reason-room-with-a-longer-name@conference.example.org" } } : {}) };
        const onMainThread = rendered(turtle, ctx);
        const ahead = splitsAhead(turtle, solutionRequestSplitKeys(SESSION, ctx));
        rememberSplits(turtle, ahead);
        remembered.push(turtle);
        expect(rendered(turtle, ctx)).toEqual(onMainThread);
      }),
      { numRuns: 60 },
    );
  });

  it("is the split rendering looks up (same part sizes and skolem base for each room)", () => {
    const turtle = model(200, 1);
    const ctx: RenderContext = { room: "mfr@conference.example.org", logRoom: undefined, maxStanzaBytes: 8192, phaseRooms: { reason: "reason@conference.example.org" } };
    const ahead = splitsAhead(turtle, solutionRequestSplitKeys(SESSION, ctx));
    expect(ahead).toHaveLength(2);
    // Marked copies: if rendering used them, the marks are on the wire.
    rememberSplits(turtle, ahead.map((s) => ({ ...s, parts: s.parts.ok ? { ...s.parts, parts: s.parts.parts.map((p) => `${p}# split ahead\n`) } : s.parts })));
    remembered.push(turtle);
    const modelParts = renderEffects(SESSION, solutionRequest(turtle), 0, ctx).outgoing.filter((o) => o.stanza.getChildElements().some((c) => c.name === "modelPart"));
    expect(modelParts.length).toBeGreaterThan(2);
    expect(modelParts.every((o) => o.stanza.toString().includes("# split ahead"))).toBe(true);
  });

  it("splits nothing ahead for a model that fits in one part", () => {
    expect(splitsAhead(model(1, 0), solutionRequestSplitKeys(SESSION, { room: "r@c.example.org", logRoom: undefined, maxStanzaBytes: 200 * 1024 }))).toEqual([]);
  });
});
