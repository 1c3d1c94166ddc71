import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ServiceError } from '../common/errors.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';

// Who may call what (API_KEYS): each scope includes the ones before it.
export const SCOPES = ['read', 'score', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
/** `open`: probes and the API's own documentation, never behind a key. */
type Requirement = Scope | 'open';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route needs; unset: GET and HEAD need `read`, anything else `score`. */
    scope?: Requirement;
  }
  interface FastifyRequest {
    /** Which key called (its position in API_KEYS, 1-based), for rate limits and logs; never the key. */
    keyId?: string;
  }
}

class AccessDenied extends ServiceError {
  override name = 'AccessDenied';
  constructor(status: 401 | 403, message: string) {
    super(status === 401 ? 'unauthorized' : 'forbidden', message);
  }
}

class InvalidKeys extends Error {
  override name = 'InvalidKeys';
}

interface Key {
  scope: Scope;
  digest: Buffer;
  id: string;
}

const digest = (key: string) => createHash('sha256').update(key).digest();

/** `scope:key` entries from API_KEYS (comma-separated) and API_KEYS_FILE (one per line, `#` comments). */
export function parseKeys(inline: string, file: string | undefined): Key[] {
  const entries = inline.split(',');
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new InvalidKeys(`API_KEYS_FILE cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    entries.push(...text.split('\n').filter((line) => !line.trimStart().startsWith('#')));
  }
  const keys: Key[] = [];
  for (const raw of entries.map((e) => e.trim()).filter((e) => e !== '')) {
    const colon = raw.indexOf(':');
    const scope = raw.slice(0, colon) as Scope;
    const key = raw.slice(colon + 1);
    if (colon < 0 || !SCOPES.includes(scope))
      throw new InvalidKeys(`API_KEYS: entry ${keys.length + 1} must be scope:key with scope one of ${SCOPES.join(', ')}`);
    if (key.length < 16) throw new InvalidKeys(`API_KEYS: the key of entry ${keys.length + 1} is shorter than 16 characters`);
    keys.push({ scope, digest: digest(key), id: `key${keys.length + 1}` });
  }
  return keys;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** The start-up rule: no keys on an address others can reach, unless anonymous access is asked for. */
export function exposureProblem(host: string, keys: readonly Key[], allowAnonymous: boolean): string | null {
  if (keys.length > 0 || allowAnonymous || LOOPBACK.test(host)) return null;
  return `refusing to listen on ${host} without API keys: set API_KEYS (or API_KEYS_FILE), or ALLOW_ANONYMOUS=true to serve anyone who can reach the port`;
}

const requirement = (req: FastifyRequest): Requirement => req.routeOptions.config.scope ?? (req.method === 'GET' || req.method === 'HEAD' ? 'read' : 'score');

/** Same work whatever the key: every configured key is compared, in constant time each. */
function lookup(keys: readonly Key[], presented: string): Key | undefined {
  const d = digest(presented);
  let found: Key | undefined;
  for (const k of keys) if (timingSafeEqual(k.digest, d) && found === undefined) found = k;
  return found;
}

/**
 * The keys in force: read at start, read again from API_KEYS and API_KEYS_FILE by `reload` (SIGHUP), so that a
 * key added with `plan-reward keys new --file` or one revoked from the file takes effect without a restart.
 */
export class KeyRing {
  constructor(
    private keys: readonly Key[],
    private readonly source: { inline: string; file: string | undefined; host: string; allowAnonymous: boolean },
  ) {}

  get current(): readonly Key[] {
    return this.keys;
  }

  /** The keys read again; throws why not (a bad file, or none left on an exposed address), the old ones kept. */
  reload(): Record<Scope, number> {
    const keys = parseKeys(this.source.inline, this.source.file);
    const exposed = exposureProblem(this.source.host, keys, this.source.allowAnonymous);
    if (exposed) throw new InvalidKeys(exposed);
    this.keys = keys;
    return keyCounts(keys);
  }
}

/** How many keys of each scope, never the keys: an operator sees whether the keys they meant are in force. */
export const keyCounts = (keys: readonly Key[]) =>
  Object.fromEntries(SCOPES.map((s) => [s, keys.filter((k) => k.scope === s).length])) as Record<Scope, number>;

/**
 * Bearer-key access control; with no keys in force every request is anonymous and allowed. The key is read
 * here, in an onRequest hook that refuses nothing; the refusal (401, 403) is made by the hook the returned
 * function adds, so that a rate limit added between them counts requests without a valid key too.
 */
export function installAccess(app: FastifyInstance, ring: KeyRing): () => void {
  // Swagger UI and the document it shows are open, like the probes: the API's shape is no secret. So are
  // the dashboard's static files: they hold no data, and every call they make for data sends the key.
  app.addHook('onRoute', (route) => {
    if (/^\/(docs|dashboard)(\/|$)/.test(route.url)) route.config = { ...route.config, scope: 'open' };
  });
  const refusals = new WeakMap<FastifyRequest, AccessDenied>();
  const refusal = (req: FastifyRequest): AccessDenied | undefined => {
    const keys = ring.current;
    if (keys.length === 0) return undefined;
    // An unknown path needs a key too (the default scope): without one, nobody learns which paths exist.
    const needed = requirement(req);
    if (needed === 'open') return undefined;
    const header = req.headers.authorization;
    const match = header === undefined ? null : /^Bearer[ \t]+([^ \t]+)[ \t]*$/i.exec(header);
    if (!match) return new AccessDenied(401, 'send an API key as `Authorization: Bearer <key>`');
    const key = lookup(keys, match[1]!);
    if (!key) return new AccessDenied(401, 'the API key is not valid');
    req.keyId = key.id;
    if (SCOPES.indexOf(key.scope) < SCOPES.indexOf(needed)) {
      return new AccessDenied(403, `this route needs a key with scope ${needed} (or above); the key has ${key.scope}`);
    }
    return undefined;
  };
  app.addHook('onRequest', async (req) => {
    const denied = refusal(req);
    if (denied) refusals.set(req, denied);
  });
  return () =>
    app.addHook('onRequest', async (req) => {
      const denied = refusals.get(req);
      if (denied) throw denied;
    });
}
