import { describe, expect, it } from "vitest";
import { parseDebateLine } from "../../src/agent-choice/debate-lines.js";

function consensusNames(body: string): string[] {
  const line = parseDebateLine(body);
  expect(line?.kind, body).toBe("consensus");
  return line?.kind === "consensus" ? line.names : [];
}

describe("parseDebateLine", () => {
  it("reads the protocol's own consensus sentence into names", () => {
    expect(parseDebateLine("Consensus reached: Use prolog, mistral for this problem.")).toEqual({
      kind: "consensus",
      names: ["prolog", "mistral"],
      text: "Consensus reached: Use prolog, mistral for this problem.",
    });
  });

  it("reads the consensus whatever the case, address, markdown and punctuation", () => {
    expect(consensusNames("CONSENSUS REACHED: USE PROLOG AND MISTRAL")).toEqual(["PROLOG", "MISTRAL"]);
    expect(consensusNames("Chair: Consensus reached: Use Prolog, Mistral for this problem.")).toEqual(["Prolog", "Mistral"]);
    expect(consensusNames("@Coordinator, consensus reached: use Data")).toEqual(["Data"]);
    expect(consensusNames("**Consensus reached:** Use Prolog and Mistral.")).toEqual(["Prolog", "Mistral"]);
    expect(consensusNames("> **Consensus reached**: use `prolog` & `data`!")).toEqual(["prolog", "data"]);
    expect(consensusNames("Consensus: use Prolog and Data")).toEqual(["Prolog", "Data"]);
    expect(consensusNames("Consensus reached - Prolog + Mistral")).toEqual(["Prolog", "Mistral"]);
    expect(consensusNames("Use Prolog, Mistral and Data for this problem.")).toEqual(["Prolog", "Mistral", "Data"]);
    expect(consensusNames("The consensus is to use Mistral for entities and Prolog for planning.")).toEqual(["Mistral", "Prolog"]);
    expect(consensusNames("Consensus reached: we will use the Prolog agent (for planning) and Data; Mistral was not needed.")).toEqual(["Prolog", "Data"]);
  });

  it("finds the consensus wherever it stands: after an acknowledgement, in any sentence", () => {
    expect(parseDebateLine("Noted. Consensus reached: Use prolog, semantic for this problem.")).toEqual({
      kind: "consensus",
      names: ["prolog", "semantic"],
      text: "Consensus reached: Use prolog, semantic for this problem.",
    });
    expect(consensusNames("Thanks, everyone! The debate is over. Consensus reached: use MFR-Semantic and Prolog.")).toEqual(["MFR-Semantic", "Prolog"]);
    expect(parseDebateLine("Noted. No consensus reached.")).toMatchObject({ kind: "no-consensus" });
    expect(parseDebateLine("Noted. Position: Prolog plans.")).toEqual({ kind: "position", text: "Prolog plans." });
  });

  it("finds the consensus on a later line, and the names on the line after a bare 'Consensus reached:'", () => {
    expect(consensusNames("Summary of the debate: two positions.\nConsensus reached: Use Prolog for this problem.")).toEqual(["Prolog"]);
    expect(consensusNames("Consensus reached:\nUse Mistral and Data")).toEqual(["Mistral", "Data"]);
  });

  it("reads the absence of consensus", () => {
    for (const body of ["No consensus reached.", "Chair: no consensus was possible", "Consensus not reached: positions differ", "The debate ended without consensus."]) {
      expect(parseDebateLine(body), body).toMatchObject({ kind: "no-consensus" });
    }
  });

  it("reads the start of the debate and the participants' lines", () => {
    expect(parseDebateLine("Debate started. Please post Position/Support/Objection.")).toEqual({ kind: "started" });
    expect(parseDebateLine("**Debate started** for session mfr-1")).toEqual({ kind: "started" });
    expect(parseDebateLine("Position: Prolog should plan the route.")).toEqual({ kind: "position", text: "Prolog should plan the route." });
    expect(parseDebateLine("Mistral: SUPPORT: agree with Prolog")).toEqual({ kind: "support", text: "agree with Prolog" });
    expect(parseDebateLine("- Objection - Data is not needed\nbecause nothing must be looked up")).toEqual({
      kind: "objection",
      text: "Data is not needed because nothing must be looked up",
    });
  });

  it("returns null for everything else, including clarification answers and talk about consensus", () => {
    for (const body of ["hello", "use 1,3", "use all", "Consensus is forming around Prolog", "I support this idea", "", "Position:"]) {
      expect(parseDebateLine(body), body).toBeNull();
    }
  });
});
