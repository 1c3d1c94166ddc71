import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);
const uplot = dirname(require.resolve('uplot/package.json'));
const dagre = dirname(require.resolve('@dagrejs/dagre/package.json'));

// The charting and graph-layout libraries, served from node_modules as the browser's ES modules: no CDN,
// no bundler. Only these files, by name.
const VENDOR: Record<string, string> = {
  'uPlot.esm.js': join(uplot, 'dist/uPlot.esm.js'),
  'uPlot.min.css': join(uplot, 'dist/uPlot.min.css'),
  'dagre.esm.js': join(dagre, 'dist/dagre.esm.js'),
};

/** The dashboard at /dashboard/: static pages that call the API with the key the user enters. */
export async function registerDashboard(app: FastifyInstance): Promise<void> {
  await app.register(fastifyStatic, {
    root: fileURLToPath(new URL('../../web/dashboard', import.meta.url)),
    prefix: '/dashboard/',
    schemaHide: true,
  });
  await app.register(fastifyStatic, {
    root: [...new Set(Object.values(VENDOR).map(dirname))],
    prefix: '/dashboard/vendor/',
    schemaHide: true,
    decorateReply: false,
    allowedPath: (path) => Object.hasOwn(VENDOR, path.replace(/^\//, '')),
    maxAge: '1d',
  });
  app.get('/dashboard', { schema: { hide: true } }, (_req, reply) => reply.redirect('/dashboard/'));
}
