/**
 * Tasks of one key run one after another, in the order they were given; tasks of different
 * keys do not wait for each other. The host uses it where an input must reach the core in
 * arrival order although the work before it is asynchronous (the parts of one contribution,
 * the plan checks of one session's proposals).
 */
export class KeyedSequence {
  /** Key → the last task given, while it is waiting or running. */
  private readonly latest = new Map<string, Promise<void>>();

  /** Whether a task of `key` is waiting or running. */
  busy(key: string): boolean {
    return this.latest.has(key);
  }

  /**
   * Runs `task` once the tasks of `key` given before it have finished. A failure goes to
   * `onError`, never to the caller nor to the tasks after it. Resolves when the task is done.
   */
  run(key: string, task: () => void | Promise<void>, onError: (err: unknown) => void): Promise<void> {
    const next = (this.latest.get(key) ?? Promise.resolve()).then(task).catch(onError);
    this.latest.set(key, next);
    void next.then(() => {
      if (this.latest.get(key) === next) this.latest.delete(key);
    });
    return next;
  }
}
