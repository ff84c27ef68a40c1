import { describe, expect, it } from "vitest";
import { AgentCatalog } from "../../src/catalog/catalog.js";
import { LINGUE_FEATURES } from "../../src/protocol/vocab.js";
import { profile } from "./helpers.js";

const LINGUE_FEATURE = LINGUE_FEATURES[1];
const MUC = "http://jabber.org/protocol/muc";

function catalog() {
  return new AgentCatalog([profile("Prolog"), profile("Mistral"), profile("Chair", { isChair: true })], { selfNick: "Coordinator" });
}

describe("AgentCatalog presence", () => {
  it("lists every profiled agent, absent until it joins, present until it leaves", () => {
    const c = catalog();
    expect(c.entries().map((e) => [e.nick, e.present])).toEqual([
      ["Chair", false],
      ["Mistral", false],
      ["Prolog", false],
    ]);
    c.occupantJoined("Prolog", "prolog@localhost/Prolog");
    expect(c.presentAgents().map((e) => e.nick)).toEqual(["Prolog"]);
    c.occupantLeft("Prolog");
    expect(c.presentAgents()).toEqual([]);
    expect(c.find("prolog")?.present).toBe(false);
  });

  it("matches room nicks to profile nicks case-insensitively and shows the room's spelling while present", () => {
    const c = catalog();
    c.occupantJoined("prolog");
    const entry = c.find("PROLOG");
    expect(entry).toMatchObject({ nick: "prolog", present: true });
    expect(entry?.profile?.nick).toBe("Prolog");
    c.occupantLeft("PROLOG");
    expect(c.find("prolog")).toMatchObject({ nick: "Prolog", present: false });
  });

  it("does not list humans, nor the coordinator itself", () => {
    const c = catalog();
    c.occupantJoined("alice", "alice@localhost/phone");
    c.occupantJoined("Coordinator");
    expect(c.needsDiscovery("Coordinator")).toBe(false);
    c.featuresDiscovered("alice", [MUC]);
    expect(c.entries().map((e) => e.nick)).toEqual(["Chair", "Mistral", "Prolog"]);
    expect(c.find("alice")).toBeUndefined();
  });

  it("knows whether the Chair is present, by nick or by a profile that marks it as the Chair", () => {
    const c = catalog();
    expect(c.chairPresent("Chair")).toBe(false);
    c.occupantJoined("chair");
    expect(c.chairPresent("Chair")).toBe(true);
    expect(c.presentChair("Chair")).toBe("chair");
    c.occupantLeft("chair");
    expect(c.chairPresent("Chair")).toBe(false);

    const moderated = new AgentCatalog([profile("Moderator", { isChair: true })]);
    moderated.occupantJoined("Moderator");
    expect(moderated.presentChair("Chair")).toBe("Moderator");
  });
});

describe("AgentCatalog discovery", () => {
  it("asks for disco#info exactly once per new occupant, and reuses the answer when the same occupant rejoins", () => {
    const c = catalog();
    expect(c.needsDiscovery("Prolog")).toBe(false); // not in the room
    c.occupantJoined("Prolog", "prolog@localhost/a");
    expect(c.needsDiscovery("Prolog")).toBe(true);
    expect(c.needsDiscovery("prolog")).toBe(false);
    c.featuresDiscovered("Prolog", [LINGUE_FEATURE, MUC]);
    c.occupantLeft("Prolog");
    c.occupantJoined("Prolog", "prolog@localhost/b"); // same bare JID, new resource
    expect(c.needsDiscovery("Prolog")).toBe(false);
    expect(c.find("Prolog")).toMatchObject({ features: [LINGUE_FEATURE, MUC], lingue: true });
  });

  it("asks again when someone else takes the nick, and does not show the old occupant's features", () => {
    const c = catalog();
    c.occupantJoined("Prolog", "prolog@localhost");
    expect(c.needsDiscovery("Prolog")).toBe(true);
    c.featuresDiscovered("Prolog", [LINGUE_FEATURE]);
    c.occupantLeft("Prolog");
    c.occupantJoined("Prolog", "impostor@elsewhere");
    expect(c.find("Prolog")).toMatchObject({ features: [], lingue: false });
    expect(c.needsDiscovery("Prolog")).toBe(true);
  });

  it("makes an occupant with Lingue features an agent even without a profile", () => {
    const c = catalog();
    c.occupantJoined("Helper", "helper@localhost");
    expect(c.find("Helper")).toBeUndefined();
    expect(c.needsDiscovery("Helper")).toBe(true);
    c.featuresDiscovered("Helper", [MUC, LINGUE_FEATURE]);
    expect(c.find("helper")).toEqual({ nick: "Helper", present: true, features: [MUC, LINGUE_FEATURE], lingue: true });
    expect(c.presentAgents().map((e) => e.nick)).toEqual(["Helper"]);
  });

  it("makes an occupant that spoke the protocol an agent", () => {
    const c = catalog();
    c.occupantJoined("planner");
    c.markAgent("planner");
    expect(c.find("planner")).toMatchObject({ present: true, lingue: false });
  });
});

describe("AgentCatalog bounds", () => {
  it("keeps at most maxUnprofiled occupants without a profile, forgetting absent ones first", () => {
    const c = new AgentCatalog([profile("Prolog")], { maxUnprofiled: 3 });
    for (const nick of ["a", "b", "c"]) {
      c.occupantJoined(nick);
      c.featuresDiscovered(nick, [LINGUE_FEATURE]);
    }
    c.occupantLeft("b");
    c.occupantJoined("d");
    c.featuresDiscovered("d", [LINGUE_FEATURE]);
    c.occupantJoined("Prolog"); // profiled agents do not count
    expect(c.entries().map((e) => e.nick)).toEqual(["a", "c", "d", "Prolog"]);
    c.occupantJoined("e");
    c.featuresDiscovered("e", [LINGUE_FEATURE]);
    expect(c.entries().map((e) => e.nick)).toEqual(["c", "d", "e", "Prolog"]);
  });

  it("keeps only a bounded number of features per occupant", () => {
    const c = catalog();
    c.occupantJoined("Prolog");
    c.featuresDiscovered("Prolog", Array.from({ length: 500 }, (_, i) => `${LINGUE_FEATURE}/${i}`));
    expect(c.find("Prolog")?.features.length).toBeLessThanOrEqual(100);
  });
});
