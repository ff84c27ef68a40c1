/**
 * A Chair agent for integration tests that behaves as docs/protocol.md describes the existing
 * ones ("Debate with a Chair"): plain text only, no profile, no disco#info features. It reads
 * every plain room line as debate input, except lines starting with a system-status marker
 * and lines starting with the word "debate" (it takes those for a person's command). A line
 * containing "Which tools and agents should we use" or "Available agents:" opens a debate: it
 * answers "Debate started. …" and, when scripted, announces its consensus with a prefix and
 * shortened lower-case names ("Noted. Consensus reached: Use prolog, semantic for this problem.").
 */
import { TestPeer, parseMessage, type Element, type ReceivedMessage } from "./peer.js";
import { peerOptions, registerUser, type LocalProsody } from "./prosody.js";
import { STATUS_MARKERS } from "./scripted-agent.js";

export interface ChairScript {
  /** What it says once the debate has started; undefined: it never concludes. */
  consensus?: string;
  /** Between "Debate started." and the consensus. */
  delayMs?: number;
}

export class ScriptedChair {
  /** Plain lines from others it read as debate input, in order. */
  readonly heard: ReceivedMessage[] = [];
  /** The invitations it recognised. */
  readonly invitations: ReceivedMessage[] = [];

  private constructor(
    readonly peer: TestPeer,
    readonly room: string,
    readonly nick: string,
    private readonly script: ChairScript,
  ) {
    // Answers race with stop() at the end of a test; a send on a closing stream is not a failure.
    peer.xmpp.on("stanza", (stanza: Element) => {
      if (stanza.is("message")) void this.onMessage(parseMessage(stanza)).catch(() => undefined);
    });
  }

  static async join(server: LocalProsody, room: string, script: ChairScript = {}, nick = "Chair"): Promise<ScriptedChair> {
    const peer = await TestPeer.connect(peerOptions(server, await registerUser(server, "chair")));
    await peer.joinRoom(room, nick);
    return new ScriptedChair(peer, room, nick, script);
  }

  /** Coordinator lines it read as debate input (its own invitation included). */
  heardFrom(occupant: string): ReceivedMessage[] {
    return this.heard.filter((m) => m.from === occupant);
  }

  async say(body: string): Promise<void> {
    await this.peer.sendGroupchat(this.room, { body });
  }

  private async onMessage(m: ReceivedMessage): Promise<void> {
    if (m.type !== "groupchat" || m.payload || m.delayed || m.from === `${this.room}/${this.nick}`) return;
    const body = m.body ?? "";
    if (body === "" || STATUS_MARKERS.some((marker) => body.startsWith(marker)) || /^debate\b/i.test(body)) return;
    this.heard.push(m);
    if (!/Which tools and agents should we use|Available agents:/.test(body)) return;
    this.invitations.push(m);
    await this.say("Debate started. Please post Position/Support/Objection.");
    if (this.script.consensus === undefined) return;
    await new Promise((r) => setTimeout(r, this.script.delayMs ?? 200));
    await this.say(this.script.consensus);
  }

  async stop(): Promise<void> {
    await this.peer.stop();
  }
}
