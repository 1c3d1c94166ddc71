/**
 * Where a request's time went, by stage (ms, wall clock): what its Server-Timing header and log line say.
 * A stage timed twice (plans judged again after their run's options changed) counts both times.
 */
export class Timings {
  private readonly stages = new Map<string, number>();

  add(stage: string, ms: number): void {
    this.stages.set(stage, (this.stages.get(stage) ?? 0) + ms);
  }

  async time<T>(stage: string, work: () => T | Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.add(stage, performance.now() - start);
    }
  }

  /** Each stage's milliseconds, in the order the stages were first timed. */
  entries(): [stage: string, ms: number][] {
    return [...this.stages];
  }
}

/** A Server-Timing header value (W3C Server Timing): `stage;dur=ms` for each stage, tenths of a millisecond. */
export const serverTiming = (entries: readonly (readonly [string, number])[]): string =>
  entries.map(([stage, ms]) => `${stage};dur=${ms.toFixed(1)}`).join(', ');
