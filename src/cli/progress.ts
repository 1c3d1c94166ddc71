// Progress on stderr: a redrawn bar when stderr is a terminal, a plain line every few seconds when it is a
// pipe or a log file (a bar's carriage returns would fill a log with one giant line).

export interface ProgressOptions {
  tty: boolean;
  /** Input size in bytes, for the percentage; null when unknown (a pipe). */
  totalBytes: number | null;
  bytesRead: () => number;
  /** Minimum time between two updates. Default: 100 ms on a terminal, 5 s otherwise. */
  intervalMs?: number;
  now?: () => number;
}

export class Progress {
  private readonly start: number;
  private last: number;
  private readonly interval: number;
  private readonly now: () => number;

  constructor(
    private readonly out: { write(s: string): unknown },
    private readonly opts: ProgressOptions,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.start = this.now();
    this.last = this.start;
    this.interval = opts.intervalMs ?? (opts.tty ? 100 : 5000);
  }

  update(lines: number): void {
    const t = this.now();
    if (t - this.last < this.interval) return;
    this.last = t;
    this.draw(lines, t, false);
  }

  done(lines: number): void {
    this.draw(lines, this.now(), true);
  }

  private draw(lines: number, t: number, final: boolean): void {
    const secs = Math.max((t - this.start) / 1000, 1e-9);
    const rate = lines / secs;
    const fraction = this.opts.totalBytes ? Math.min(1, this.opts.bytesRead() / this.opts.totalBytes) : null;
    const stats = `${lines.toLocaleString('en-US')} lines  ${Math.round(rate).toLocaleString('en-US')} lines/s  ${secs.toFixed(1)} s`;
    if (this.opts.tty) {
      const done = final ? 1 : fraction;
      const bar = done === null ? '' : `[${'#'.repeat(Math.round(done * 30)).padEnd(30, '-')}] ${(100 * done).toFixed(1).padStart(5)}%  `;
      this.out.write(`\r${bar}${stats}\x1b[K${final ? '\n' : ''}`);
    } else {
      const pct = fraction === null || final ? '' : `${(100 * fraction).toFixed(1)}%  `;
      this.out.write(`${final ? 'done: ' : 'progress: '}${pct}${stats}\n`);
    }
  }
}
