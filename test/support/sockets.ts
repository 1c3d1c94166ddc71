import { connect, type Socket } from 'node:net';
import type { Test } from 'tap';

/** A raw client connection, with everything the server sent on it so far. */
export interface Client {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
}

/** A connection to 127.0.0.1:`port` from `from` (a loopback address: Linux routes all of 127.0.0.0/8 there), closed by the test's end. */
export function openSocket(t: Test, port: number, from = '127.0.0.1'): Promise<Client> {
  return new Promise((resolve) => {
    let received = '';
    const socket = connect({ port, host: '127.0.0.1', localAddress: from }, () => resolve({ socket, received: () => received, closed }));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (d) => {
      received += d.toString();
    });
    socket.on('error', () => undefined);
    t.teardown(() => socket.destroy());
  });
}
