export interface Cluster {
  /** postgres://…/postgres, as superuser, no password. */
  url: string;
  dataDir: string;
  start(): string;
  stop(mode?: 'smart' | 'fast' | 'immediate'): string;
  restart(mode?: 'smart' | 'fast' | 'immediate'): string;
  /** The postmaster's process id, or null when it is not running. */
  pid(): number | null;
  remove(): void;
}
export function startCluster(): Promise<Cluster>;
