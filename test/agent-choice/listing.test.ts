import { describe, expect, it } from "vitest";
import { loadAgentProfiles } from "../../src/agent-choice/agent-profile.js";
import { AgentCatalog, type ListedAgent } from "../../src/agent-choice/catalog.js";
import { agentsListing } from "../../src/agent-choice/agents-listing.js";
import { LINGUE_FEATURES } from "../../src/base/vocab.js";
import { REPO_PROFILES } from "./helpers.js";

const T = 1_700_000_000_000;
const occ = (nick: string) => ({ nick, identity: `occupant:${nick.toLowerCase()}` });

describe("agentsListing", () => {
  it("lists present agents first, then absent ones, with what each can do, who needs approval, and the evidence", () => {
    const { profiles } = loadAgentProfiles(REPO_PROFILES, { excludeFiles: ["coordinator.ttl"] });
    const catalog = new AgentCatalog(profiles, { selfNick: "Coordinator", chairNick: "Chair" });
    for (const nick of ["Prolog", "Executor", "helper", "MfrReasoner", "dana"]) catalog.occupantJoined(occ(nick));
    catalog.featuresDiscovered("helper", [`${LINGUE_FEATURES[0]}`, "http://purl.org/stuff/lingue/feature/lang/prolog-program"], T);
    catalog.noteProtocol(occ("Prolog"), "contribution", T);
    catalog.notePerson(occ("dana"), T);

    const text = agentsListing(catalog.listing());
    const lines = text.split("\n");
    expect(lines[0]).toBe("Agents: 4 in the room, 5 known but away.");
    expect(lines.slice(1).map((l) => /^- (\S+) \((present|absent)\)/.exec(l)?.slice(1, 3).join(" "))).toEqual([
      "Executor present",
      "helper present",
      "MfrReasoner present",
      "Prolog present",
      "Chair absent",
      "Data absent",
      "Mistral absent",
      "Semantic absent",
      "Solver absent",
    ]);
    expect(lines[1]).toBe("- Executor (present): plan execution (needs approval) — evidence: its profile");
    expect(lines[2]).toBe("- helper (present): prolog program — evidence: Lingue features");
    expect(lines[3]).toBe("- MfrReasoner (present): no profile — evidence: no evidence yet; not known as a person, so it might be an agent");
    expect(lines[4]).toMatch(/^- Prolog \(present\): constraints, actions; logical reasoning, models actions.* — evidence: its profile; protocol messages \(1 contribution\)$/);
    expect(lines[5]).toMatch(/\(chair\) — evidence: its profile$/);
    // The phrases that open a debate belong to the invitation alone; the person is not listed.
    expect(text).not.toMatch(/Available agents:|Which tools and agents should we use/);
    expect(text).not.toContain("dana");
  });

  it("stays short in a crowded room", () => {
    const agents: ListedAgent[] = Array.from({ length: 25 }, (_, i) => ({
      nick: `agent${String(i).padStart(2, "0")}`,
      present: true,
      offers: "x",
      evidence: ["protocol"],
      contributions: 0,
      proposals: 0,
      needsApproval: false,
      chair: false,
    }));
    const lines = agentsListing(agents).split("\n");
    expect(lines).toHaveLength(22);
    expect(lines[21]).toBe("… and 5 more");
  });

  it("says so when no agent is known", () => {
    expect(agentsListing([])).toMatch(/^No agents known yet/);
  });
});
