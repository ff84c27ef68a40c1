/**
 * The room's share of a session, measured: a stand-in coordinator that costs nothing. It
 * replays what the real coordinator sent in one session (captured in the warm-up), in a room
 * of its own with the same number of occupants and agents that answer the same way: the
 * ModelContributionRequest at `mfr-start`, what came next once the five contributions are in,
 * the SessionComplete once the five proposals are. Its latency is what the room and the
 * agents take for a session (every message fanned out to every occupant, every contribution
 * and the model read by the agents), with none of the coordinator's work: the coordinator's
 * overhead is its own latency less this one.
 */
import { xml } from "@xmpp/client";
import { LINGUE, MFR, Mode } from "../../src/base/vocab.js";
import type { Element, Occupant } from "../support/occupant.js";

/** The protocol messages a session's coordinator sent, in order, as the room delivered them. */
export class SessionRecording {
  readonly sent: Element[] = [];

  /** A message the coordinator sent in the recorded session. */
  add(stanza: Element): void {
    this.sent.push(stanza);
  }

  /** Where the replay waits: after the request for contributions, and before the SessionComplete. */
  phases(): [Element[], Element[], Element[]] {
    const typeAt = (type: string) => this.sent.findIndex((s) => s.getChild("payload", LINGUE)?.attrs.messageType === `${MFR}${type}`);
    const request = typeAt("ModelContributionRequest");
    const complete = typeAt("SessionComplete");
    if (request < 0 || complete < 0) throw new Error("the recorded session has no ModelContributionRequest or no SessionComplete");
    return [this.sent.slice(0, request + 1), this.sent.slice(request + 1, complete), this.sent.slice(complete)];
  }
}

/** The same message for another room and session: the same children, the server's own additions left out. */
function replayed(stanza: Element, room: string, sessionId: string): Element {
  const children = stanza.children.filter((c): c is Element => typeof c !== "string" && c.name !== "occupant-id" && c.name !== "stanza-id");
  return xml(
    "message",
    { to: room, type: "groupchat" },
    ...children.map((c) => (c.name === "sessionId" && c.attrs.xmlns === LINGUE ? xml("sessionId", { xmlns: LINGUE }, sessionId) : c)),
  );
}

function proposalSession(json: string): string | undefined {
  try {
    return (JSON.parse(json) as { sessionId?: string }).sessionId;
  } catch {
    return undefined;
  }
}

/** Replays a recorded session whenever someone types `mfr-start` in its room; one at a time. */
export class StandIn {
  private current: { sessionId: string; contributions: number; proposals: number } | undefined;
  private count = 0;

  constructor(
    private readonly occupant: Occupant,
    private readonly recording: SessionRecording,
    private readonly agents: number,
  ) {
    const [opening, model, closing] = recording.phases();
    occupant.onMessage = (stanza) => {
      const body = stanza.getChildText("body") ?? "";
      if (body.startsWith("mfr-start ")) {
        this.current = { sessionId: `replay-${++this.count}`, contributions: 0, proposals: 0 };
        this.send(opening);
        return;
      }
      const current = this.current;
      const payload = stanza.getChild("payload", LINGUE);
      if (!current || !payload) return;
      // Contributions name their session beside the payload, proposals inside it (as the agents write them).
      if (payload.attrs.mode === Mode.ModelFirstRDF && stanza.getChildText("sessionId", LINGUE) === current.sessionId) {
        if (++current.contributions === this.agents) this.send(model);
      } else if (payload.attrs.messageType === `${MFR}SolutionProposal` && proposalSession(payload.text()) === current.sessionId) {
        if (++current.proposals === this.agents) this.send(closing);
      }
    };
  }

  private send(stanzas: readonly Element[]): void {
    const sessionId = this.current?.sessionId ?? "";
    for (const stanza of stanzas) void this.occupant.xmpp.send(replayed(stanza, this.occupant.room, sessionId));
  }
}
