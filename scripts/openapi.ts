// Regenerates openapi/openapi.json from the route schemas: `npm run openapi`.
import { writeFile } from 'node:fs/promises';
import { openApiDocument } from '../src/openapi.js';

const target = new URL('../openapi/openapi.json', import.meta.url);
await writeFile(target, await openApiDocument());
console.log(`wrote ${target.pathname}`);
