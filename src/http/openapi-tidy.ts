// The OpenAPI document as generated from the zod schemas, made readable: one component per type, only
// the components something uses, a description on every response, no ±2^53 bounds shown as examples.
import type { OpenAPIV3_1 } from 'openapi-types';
import { ERRORS } from '../contracts/errors.js';

type Doc = OpenAPIV3_1.Document;
const REF = '#/components/schemas/';

/** What an error status means, from the error table: each code answered with it and its meaning. */
const errorMeaning = (status: string): string | undefined => {
  const rows = Object.entries(ERRORS).filter(([, row]) => String(row.status) === status);
  return rows.length === 0 ? undefined : rows.map(([code, row]) => `\`${code}\`: ${row.meaning}`).join('. ');
};

export function tidyOpenApi(doc: Doc): Doc {
  const all = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  // zod emits a request schema X as XInput beside X; where the two are the same, X serves both.
  const same = Object.keys(all).filter((n) => {
    const base = baseOf(n);
    return base !== null && base in all && JSON.stringify(all[base]) === JSON.stringify(all[n]);
  });
  // Safe-integer bounds say nothing a reader needs, and Swagger UI shows them as example values.
  const unbounded = renameRefs(JSON.stringify(doc), same).replaceAll(/,"(minimum|maximum)":-?9007199254740991|"(minimum|maximum)":-?9007199254740991,?/g, '');
  const used = reachableSchemas(JSON.parse(unbounded) as Doc);
  // A request schema used only as such keeps its plain name.
  const requestOnly = used.filter((n) => {
    const base = baseOf(n);
    return base !== null && !used.includes(base);
  });
  const out = JSON.parse(renameRefs(unbounded, requestOnly)) as Doc;
  const schemas = (out.components?.schemas ?? {}) as Record<string, OpenAPIV3_1.SchemaObject>;
  // zod drops the examples from the request (input) form of a schema with transforms; its output form has them.
  const withExamples = (n: string): OpenAPIV3_1.SchemaObject => {
    const base = requestOnly.includes(n) ? (schemas[baseOf(n)!] ?? {}) : {};
    return schemas[n]!.examples === undefined && base.examples !== undefined ? { ...schemas[n]!, examples: base.examples } : schemas[n]!;
  };
  out.components = { ...out.components, schemas: Object.fromEntries(used.map((n) => [requestOnly.includes(n) ? baseOf(n)! : n, withExamples(n)])) };
  for (const path of Object.values(out.paths ?? {})) {
    for (const op of Object.values(path ?? {}) as OpenAPIV3_1.OperationObject[]) {
      if (typeof op !== 'object' || op === null || !('responses' in op)) continue;
      addRequestExample(op, out.components.schemas as Record<string, OpenAPIV3_1.SchemaObject>);
      // Every keyed route can be refused for its key or its rate, whatever its own schema says.
      if (op.security === undefined) for (const status of ['401', '403', '429']) op.responses![status] ??= errorResponse();
      for (const [status, response] of Object.entries(op.responses ?? {}) as [string, OpenAPIV3_1.ResponseObject][]) {
        if (response.description !== 'Default Response') continue;
        response.description = errorMeaning(status) ?? (status === '204' ? 'Done; no body' : (op.summary ?? 'OK'));
      }
    }
  }
  return out;
}

const errorResponse = (): OpenAPIV3_1.ResponseObject => ({
  description: 'Default Response',
  content: { 'application/json': { schema: { $ref: `${REF}ErrorResponse` } } },
});

/** The request body's first schema example, also as the operation's example (what Swagger UI fills in). */
function addRequestExample(op: OpenAPIV3_1.OperationObject, schemas: Record<string, OpenAPIV3_1.SchemaObject>): void {
  const media = (op.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content?.['application/json'];
  const ref = (media?.schema as OpenAPIV3_1.ReferenceObject | undefined)?.$ref;
  const example = ref?.startsWith(REF) ? schemas[ref.slice(REF.length)]?.examples?.[0] : undefined;
  if (media && example !== undefined) media.example = example;
}

/** X for zod's request twin XInput, else null. */
const baseOf = (name: string): string | null => (name.endsWith('Input') ? name.slice(0, -'Input'.length) : null);

/** `XInput` references become `X` references. */
const renameRefs = (json: string, inputs: readonly string[]): string =>
  inputs.reduce((text, name) => text.replaceAll(`"${REF}${name}"`, `"${REF}${baseOf(name)}"`), json);

/** The names of the components that the paths use, directly or through other components, sorted. */
function reachableSchemas(doc: Doc): string[] {
  const all = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const seen = new Set<string>();
  const visit = (value: unknown) => {
    for (const m of JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = m[1]!;
      if (seen.has(name) || !(name in all)) continue;
      seen.add(name);
      visit(all[name]);
    }
  };
  visit(doc.paths);
  return Object.keys(all)
    .filter((n) => seen.has(n))
    .sort();
}
