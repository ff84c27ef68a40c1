import { xml } from "@xmpp/client";
import { describe, expect, it } from "vitest";
import { NS_SM, NS_STREAMS, withoutStreamManagement } from "../../src/xmpp/stream-features.js";

describe("the coordinator never enables XEP-0198: the offer is taken out of the stream features", () => {
  it("removes the classic <sm/> feature and leaves the others", () => {
    const plain = xml("features", { xmlns: NS_STREAMS }, xml("bind", { xmlns: "urn:ietf:params:xml:ns:xmpp-bind" }), xml("sm", { xmlns: NS_SM }), xml("ver", { xmlns: "urn:xmpp:features:rosterver" }));
    expect(withoutStreamManagement(plain)).toBe(1);
    expect(plain.getChild("sm", NS_SM)).toBeUndefined();
    expect(plain.getChildElements().map((c) => c.name)).toEqual(["bind", "ver"]);
  });

  it("removes the SASL2 inline <sm/> and the Bind2 inline feature", () => {
    const features = xml(
      "features",
      { xmlns: NS_STREAMS },
      xml(
        "authentication",
        { xmlns: "urn:xmpp:sasl:2" },
        xml("mechanism", {}, "SCRAM-SHA-1"),
        xml("inline", {}, xml("sm", { xmlns: NS_SM }), xml("bind", { xmlns: "urn:xmpp:bind:0" }, xml("inline", {}, xml("feature", { var: NS_SM }), xml("feature", { var: "urn:xmpp:carbons:2" })))),
      ),
    );
    expect(withoutStreamManagement(features)).toBe(2);
    const inline = features.getChild("authentication", "urn:xmpp:sasl:2")?.getChild("inline");
    expect(inline?.getChild("sm", NS_SM)).toBeUndefined();
    expect(inline?.getChild("bind", "urn:xmpp:bind:0")?.getChild("inline")?.getChildElements().map((f) => f.attrs.var)).toEqual(["urn:xmpp:carbons:2"]);
  });

  it("leaves other elements alone", () => {
    const message = xml("message", {}, xml("sm", { xmlns: NS_SM }));
    expect(withoutStreamManagement(message)).toBe(0);
    expect(message.getChild("sm", NS_SM)).toBeDefined();
  });
});
