/**
 * Stages composed into one chain, each handing its context on to the next, as grammY composes
 * middleware with `next`: a stage that stops the message (refused, not input, answered)
 * does not call `next`; one that must act once the rest is done wraps it. Nothing sits in the
 * middle for the stages to return to, and each stage keeps the context type it hands on.
 */

/** One stage: does its part with `ctx`, and hands the context it makes on to `next` (or stops). */
export type Stage<In, Out> = (ctx: In, next: (ctx: Out) => Promise<void>) => Promise<void>;

/** Where a message is on its way, by the name of the stage it is in (the error boundary's line says it). */
export interface Progress<Name extends string> {
  stage: Name;
}

type AnyStage = Stage<unknown, unknown>;

/** Stages in order, each named; `end` composes them into one function. */
export class Chain<Name extends string, In, Out> {
  private constructor(private readonly stages: ReadonlyArray<{ name: Name; stage: AnyStage }>) {}

  /** An empty chain taking `In`. */
  static of<Name extends string, In>(): Chain<Name, In, In> {
    return new Chain<Name, In, In>([]);
  }

  /** This chain, then `stage`, which takes what the last one hands on. */
  then<Next>(name: Name, stage: Stage<Out, Next>): Chain<Name, In, Next> {
    return new Chain<Name, In, Next>([...this.stages, { name, stage: stage as AnyStage }]);
  }

  /** The chain as one function: each stage is named in `progress` as it begins; what the last hands on goes nowhere. */
  end(): (ctx: In, progress: Progress<Name>) => Promise<void> {
    return (ctx, progress) => {
      const from = (index: number) => async (value: unknown): Promise<void> => {
        const step = this.stages[index];
        if (step === undefined) return;
        progress.stage = step.name;
        await step.stage(value, from(index + 1));
      };
      return from(0)(ctx);
    };
  }
}
