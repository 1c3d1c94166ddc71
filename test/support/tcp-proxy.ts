import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a database that fails on command, as networks and servers do: `cut()` drops
 * every open connection, `refuse` closes new ones at once, `stall` holds every byte in both directions
 * while keeping the connections open (a partition that never closes a socket), and `cutAfter(marker)` drops
 * a connection right after the server has answered the client message that contains `marker` — the answer
 * is never delivered.
 */
export interface FaultyProxy {
  port: number;
  refuse: boolean;
  stall: boolean;
  /** Connections refused so far. */
  refused: number;
  cut(): void;
  cutAfter(marker: string): Promise<void>;
  close(): Promise<void>;
}

export async function startProxy(target: { host: string; port: number }): Promise<FaultyProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let marker: { text: Buffer; hit: () => void } | null = null;
  const server = createServer((client) => {
    if (proxy.refuse) {
      proxy.refused++;
      return client.destroy();
    }
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    let armed = false;
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => {
      if (proxy.stall) return;
      if (marker && chunk.includes(marker.text)) {
        armed = true;
        const { hit } = marker;
        marker = null;
        upstream.once('data', () => {
          end();
          hit();
        });
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!armed && !proxy.stall) client.write(chunk);
    });
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: FaultyProxy = {
    port: (server.address() as AddressInfo).port,
    refuse: false,
    stall: false,
    refused: 0,
    cut: () => {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
    },
    cutAfter: (text) => new Promise<void>((hit) => (marker = { text: Buffer.from(text), hit })),
    close: async () => {
      proxy.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
