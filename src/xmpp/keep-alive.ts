/**
 * Staying in touch with the server and the rooms. A TCP connection can die without a word (a
 * NAT that forgets it, a server host that vanishes), and a room can lose us without telling
 * us (its service restarted, or the join after a reconnect failed or timed out): either way
 * the coordinator would look present and hear nothing, for as long as it runs. So every so
 * often each connection pings its server (XEP-0199), and the room connection pings itself in
 * each of its rooms (XEP-0410, "MUC Self-Ping") and joins again where it is out.
 */

export interface KeepAliveTiming {
  /** How often a connection checks in with its server (and the room connection with its rooms). */
  keepAliveMs: number;
  /** How long a ping may go unanswered before the socket is taken for dead. */
  probeTimeoutMs: number;
  /**
   * How long a room that banned us is left alone before we knock again: a ban can be lifted,
   * and nothing tells the banned user. Knocking every minute would fill a room's log with
   * refusals; every ten minutes finds a lifted ban soon enough.
   */
  bannedRetryMs: number;
}

export const DEFAULT_KEEP_ALIVE: KeepAliveTiming = { keepAliveMs: 60_000, probeTimeoutMs: 10_000, bannedRetryMs: 600_000 };

/** What came back for a ping (XEP-0199) to some entity. */
export type PingAnswer = { kind: "result" } | { kind: "error"; condition: string } | { kind: "timeout" } | { kind: "offline" };

/** Whether a room still counts us as an occupant, by the answer to our self-ping. */
export type SelfPingVerdict = "in" | "out" | "unknown";

/**
 * How the answer to a ping sent to our own occupant JID reads (XEP-0410 3.2): the room
 * forwards it to us (or answers for us) only while we are an occupant.
 * - a result: in;
 * - `service-unavailable` / `feature-not-implemented`: in (the ping reached a client that does not answer pings);
 * - `remote-server-not-found` / `remote-server-timeout`, no answer, or offline: unknown (the room's
 *   service is out of reach; ask again next time rather than leave and join on a guess);
 * - any other error (Prosody says `not-acceptable`): out, join again.
 * XEP-0410 counts `item-not-found` as in: another client sharing the nick just renamed it.
 * Nobody shares ours and we never rename, and Prosody gives that answer for a room that no
 * longer exists (a room the service lost on a restart): here it means out.
 */
export function selfPingVerdict(answer: PingAnswer): SelfPingVerdict {
  switch (answer.kind) {
    case "result":
      return "in";
    case "timeout":
    case "offline":
      return "unknown";
    case "error":
      if (IN_ROOM_CONDITIONS.has(answer.condition)) return "in";
      if (UNREACHABLE_CONDITIONS.has(answer.condition)) return "unknown";
      return "out";
  }
}

const IN_ROOM_CONDITIONS: ReadonlySet<string> = new Set(["service-unavailable", "feature-not-implemented"]);
const UNREACHABLE_CONDITIONS: ReadonlySet<string> = new Set(["remote-server-not-found", "remote-server-timeout"]);

/**
 * Runs `check` every `everyMs` until stopped, never two at once: a check that takes longer
 * than the period (a server slow to answer) is not piled up behind. The timer does not keep
 * the process alive, and a check that throws is the check's own business.
 */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly check: () => Promise<void>,
    private readonly everyMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.everyMs);
    this.timer.unref();
  }

  /** No more checks; resolves once the one under way (if any) is over, so a shutdown does not race it. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = this.check().catch(() => {
      // Checks report their own failures; the next tick tries again.
    });
    await this.running;
    this.running = undefined;
  }
}
