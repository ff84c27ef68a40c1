/**
 * Absences on servers as people already run them (docs/operating.md, "Across an absence"),
 * written once and run against a stock Prosody and a stock ejabberd (archive and history, but
 * not the project's module) and against the tested configuration (with it):
 *
 * - the coordinator is killed (-9) while a window is open (contributions, a fix round,
 *   solutions), an agent answers while it is down, without a body, as existing agents do,
 *   and the coordinator is started again. On a stock server the room kept nothing of that
 *   answer: the coordinator asks again (same round, marked as a repeat, to the agents it still
 *   awaits), extends the window, and the session ends with that agent's answer. With the
 *   module the room gave it back: nothing is asked again.
 * - an absence that overlapped no open window asks nothing again.
 *
 * The agents are scripted (test/support/scripted-agent.ts) and answer what they are asked;
 * the one that "answered while the coordinator was away" is silent at its first request and
 * answers from the second on, so only a repeat can bring its answer in.
 */
import { expect } from "vitest";
import type { CoordinatorProcess } from "./coordinator-process.js";
import { sentTwice, scene } from "./core-scenarios.js";
import type { LocalProsody } from "./prosody.js";
import { json, negotiation, toldPrivately } from "./room-kit.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, PLANNER_TURTLE_BROKEN } from "./scripted-agent.js";

type AfterThis = (step: () => Promise<unknown>) => void;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** 20 s windows; a short quiet period, which must not close a window on an agent the coordinator awaits. */
const WINDOWS = "mfr:contributionTimeout 20000 ; mfr:reasoningTimeout 20000 ; mfr:quietPeriod 3000 ; mfr:enableDebate false ;";
/** How long the coordinator stays down: agents answer in the middle of it. */
const DOWN_MS = 4000;

/** The log line of the absence handed to the sessions (catch-up/absences.ts). */
const ABSENT = "we were away and the room may not have kept what agents said meanwhile";
const ASKED_AGAIN = "asked again after an absence";

/** Kills the coordinator, runs `meanwhile` while it is down, and starts it again; resolves with the new process. */
async function absence(coordinator: CoordinatorProcess, restart: () => Promise<CoordinatorProcess>, meanwhile: () => Promise<void>): Promise<CoordinatorProcess> {
  await coordinator.kill();
  await sleep(DOWN_MS / 2);
  await meanwhile();
  await sleep(DOWN_MS / 2);
  return restart();
}

/** What a server is expected to do with an agent's body-less answer said while the coordinator was away. */
export type Keeping = "kept" | "not kept";

/** Each scenario runs against a server that keeps agents' protocol messages (`kept`) or a stock one. */
export const ABSENCE_SCENARIOS = {
  contributionWindow: {
    title: "kill -9 in the contribution window, a contribution said while it is down: asked again on a stock server and counted; nothing asked again where the room kept it; an absence with no window open asks nothing",
    run: async (server: LocalProsody, afterThis: AfterThis, keeping: Keeping) => {
      let modelerRequests = 0;
      const { room, human, agents, restart, coordinator } = await scene(
        server,
        afterThis,
        {
          cheater: { contribution: () => PLANNER_TURTLE, solution: () => GOOD_SOLUTION },
          // Answers from the second request on: its first answer is the one said during the absence.
          modeler: { contribution: () => (++modelerRequests > 1 ? MODELER_TURTLE : undefined) },
        },
        WINDOWS,
      );
      await human.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot" });
      const request = await human.waitForMessage(negotiation("ModelContributionRequest"));
      const sessionId = String(json(request).sessionId);
      await agents.cheater?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
      const back = await absence(coordinator(), restart, async () => {
        await agents.modeler?.contribute(sessionId, MODELER_TURTLE);
      });
      const complete = json(await human.waitForMessage(negotiation("SessionComplete", sessionId), 40_000));
      if (process.env.DEBUG_ABSENCE) console.log(back.logs.filter((l) => /caught up|room does|room keeps|away|asked again|contribution accepted|window closed|joined the room|history/.test(String(l.msg))).map((l) => JSON.stringify(l)).join("\n"));
      // Solved with the modeler's model: its contribution counted, either way.
      expect(complete).toMatchObject({ status: "solved" });
      expect(String(complete.summary)).toContain("modeler: 3 entities, 1 action");
      const repeats = human.messages.filter((m) => negotiation("ModelContributionRequest", sessionId)(m) && json(m).repeat === true);
      if (keeping === "not kept") {
        expect(repeats.map((m) => json(m))).toEqual([expect.objectContaining({ round: 1, requestedAgents: ["modeler"], repeat: true })]);
        // The repeat has a line for people (and for libraries that hand a bot only messages with a body).
        expect(repeats[0]?.body).toMatch(/asking again for model contributions/);
        expect(back.logs.find((l) => l.msg === ABSENT)).toMatchObject({ kept: false, sessions: [sessionId] });
        expect(back.logs.find((l) => l.msg === ASKED_AGAIN)).toMatchObject({ sessionId, window: "contributions", agents: ["modeler"] });
        // The window waited for it: closed because everyone answered, not by its timeout.
        expect(back.logs.find((l) => l.msg === "contribution window closed" && l.sessionId === sessionId)).toMatchObject({ closedBy: "everyone answered" });
        expect(agents.modeler?.requests.map((r) => r.round)).toEqual([1, 1]);
      } else {
        expect(repeats).toEqual([]);
        expect(back.logs.some((l) => l.msg === ABSENT)).toBe(false);
        expect(agents.modeler?.requests.map((r) => r.round)).toEqual([1]);
      }
      expect(sentTwice(human.messages, room)).toEqual([]);

      // Another absence, with no window open (the session is complete): nothing is asked again.
      const before = human.messages.length;
      const again = await absence(back, restart, async () => undefined);
      await again.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("caught up on"), 15_000);
      await sleep(500);
      expect(again.logs.some((l) => l.msg === ASKED_AGAIN)).toBe(false);
      expect(human.messages.slice(before).filter(negotiation("ModelContributionRequest"))).toEqual([]);
    },
  },
  fixRound: {
    title: "kill -9 in a fix round, the fix said while it is down: on a stock server the round is asked again of the agent with its issues, and the fix counts",
    run: async (server: LocalProsody, afterThis: AfterThis, keeping: Keeping) => {
      let fixRequests = 0;
      const { room, human, agents, restart, coordinator } = await scene(
        server,
        afterThis,
        {
          modeler: { contribution: (round) => (round === 1 ? MODELER_TURTLE : undefined), solution: () => GOOD_SOLUTION },
          // Round 1 breaks a rule; its fix is said during the absence, and again only when asked again.
          planner: { contribution: (round) => (round === 1 ? PLANNER_TURTLE_BROKEN : ++fixRequests > 1 ? PLANNER_TURTLE : undefined), solution: () => GOOD_SOLUTION },
        },
        WINDOWS,
      );
      await human.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot" });
      const sessionId = String(json(await human.waitForMessage(negotiation("ModelContributionRequest"))).sessionId);
      await human.waitForMessage((m) => negotiation("ModelContributionRequest", sessionId)(m) && json(m).round === 2, 15_000);
      const back = await absence(coordinator(), restart, async () => {
        await agents.planner?.contribute(sessionId, PLANNER_TURTLE);
      });
      const complete = json(await human.waitForMessage(negotiation("SessionComplete", sessionId), 40_000));
      expect(complete).toMatchObject({ status: "solved" });
      expect(String(complete.summary)).toContain("planner: 1 constraint, 1 goal");
      const repeats = human.messages.filter((m) => negotiation("ModelContributionRequest", sessionId)(m) && json(m).repeat === true);
      if (keeping === "not kept") {
        expect(repeats.map((m) => json(m))).toEqual([expect.objectContaining({ round: 2, requestedAgents: ["planner"], repeat: true })]);
        expect(Object.keys(json(repeats[0]!).issues as object)).toEqual(["planner"]);
        expect(back.logs.find((l) => l.msg === ASKED_AGAIN)).toMatchObject({ sessionId, window: "contributions", round: 2 });
      } else {
        expect(repeats).toEqual([]);
      }
      expect(sentTwice(human.messages, room)).toEqual([]);
    },
  },
  solutionWindow: {
    title: "kill -9 in the solution window, a proposal said while it is down: on a stock server the solution request is sent again with the model, and the proposal counts",
    run: async (server: LocalProsody, afterThis: AfterThis, keeping: Keeping) => {
      let solutionRequests = 0;
      const { room, human, agents, restart, coordinator } = await scene(
        server,
        afterThis,
        {
          modeler: { contribution: () => MODELER_TURTLE },
          planner: { contribution: () => PLANNER_TURTLE, solution: () => (++solutionRequests > 1 ? GOOD_SOLUTION : undefined) },
        },
        WINDOWS,
      );
      await human.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot" });
      const sessionId = String(json(await human.waitForMessage(negotiation("ModelContributionRequest"))).sessionId);
      const request = await human.waitForMessage(negotiation("SolutionRequest", sessionId), 15_000);
      const back = await absence(coordinator(), restart, async () => {
        await agents.planner?.propose(sessionId, GOOD_SOLUTION);
      });
      const complete = json(await human.waitForMessage(negotiation("SessionComplete", sessionId), 40_000));
      expect(complete).toMatchObject({ status: "solved" });
      expect((complete.solutions as Array<{ agent: string }>).map((s) => s.agent)).toEqual(["planner"]);
      const repeats = human.messages.filter((m) => negotiation("SolutionRequest", sessionId)(m) && json(m).repeat === true);
      if (keeping === "not kept") {
        expect(repeats).toHaveLength(1);
        // The same model again, so an agent that only now hears the request can answer it.
        expect(json(repeats[0]!).model).toBe(json(request).model);
        expect(back.logs.find((l) => l.msg === ASKED_AGAIN)).toMatchObject({ sessionId, window: "reasoning" });
      } else {
        expect(repeats).toEqual([]);
      }
      expect(sentTwice(human.messages, room)).toEqual([]);
    },
  },
} as const;
