/**
 * Mutated plans for the verification benchmark: from known valid plans, deterministically
 * (seeded), plans with one step dropped, two steps swapped (adjacent or any two), a step
 * duplicated, one argument replaced by another object, or the tail cut off. They carry no
 * label: a mutation can leave a plan valid (two independent steps swapped, an argument
 * replaced by an equivalent object), so the benchmark counts verdicts on them and times
 * them, and asserts nothing.
 */
import { parsePlanStep } from "../../src/formal/plan-step.js";
import { pick, randomInt, seededRandom } from "./prng.js";
import type { Random } from "./prng.js";

export const MUTATION_KINDS = ["drop", "swap-adjacent", "swap-any", "duplicate", "replace-argument", "truncate"] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

export interface MutatedPlan {
  kind: MutationKind;
  plan: string[];
  /** Index of the valid plan it was made from. */
  source: number;
}

/** One mutation of `plan`, or undefined when this kind cannot change it (too short, no argument). */
export function mutatePlan(plan: readonly string[], kind: MutationKind, objects: readonly string[], random: Random): string[] | undefined {
  const n = plan.length;
  const copy = [...plan];
  switch (kind) {
    case "drop": {
      if (n === 0) return undefined;
      copy.splice(randomInt(random, n), 1);
      return copy;
    }
    case "swap-adjacent": {
      if (n < 2) return undefined;
      const i = randomInt(random, n - 1);
      [copy[i], copy[i + 1]] = [copy[i + 1] as string, copy[i] as string];
      return copy;
    }
    case "swap-any": {
      if (n < 2) return undefined;
      const i = randomInt(random, n);
      const j = (i + 1 + randomInt(random, n - 1)) % n;
      [copy[i], copy[j]] = [copy[j] as string, copy[i] as string];
      return copy;
    }
    case "duplicate": {
      if (n === 0) return undefined;
      const i = randomInt(random, n);
      copy.splice(i + 1, 0, copy[i] as string);
      return copy;
    }
    case "replace-argument": {
      const withArgs = plan.flatMap((text, i) => {
        const step = parsePlanStep(text);
        return step !== undefined && step.args.length > 0 ? [{ i, step }] : [];
      });
      if (withArgs.length === 0) return undefined;
      const { i, step } = pick(random, withArgs);
      const a = randomInt(random, step.args.length);
      const others = objects.filter((o) => o !== step.args[a]);
      if (others.length === 0) return undefined;
      const args = step.args.map((arg, k) => (k === a ? pick(random, others) : arg));
      copy[i] = `${step.action}(${args.join(", ")})`;
      return copy;
    }
    case "truncate": {
      if (n === 0) return undefined;
      return copy.slice(0, randomInt(random, n));
    }
  }
}

/**
 * `count` mutated plans of `validPlans`, the kinds tried in turn, source plans and positions
 * drawn from `seed`. A mutation that happens to give back its source plan is drawn again.
 */
export function mutatePlans(validPlans: readonly (readonly string[])[], objects: readonly string[], options: { seed: number; count: number }): MutatedPlan[] {
  const random = seededRandom(options.seed);
  const out: MutatedPlan[] = [];
  if (validPlans.length === 0) return out;
  for (let attempt = 0; out.length < options.count && attempt < options.count * 20; attempt += 1) {
    const kind = MUTATION_KINDS[attempt % MUTATION_KINDS.length] as MutationKind;
    const source = randomInt(random, validPlans.length);
    const original = validPlans[source] as readonly string[];
    const plan = mutatePlan(original, kind, objects, random);
    if (plan === undefined || plan.join("\n") === original.join("\n")) continue;
    out.push({ kind, plan, source });
  }
  return out;
}
