// `npm run bench`: runs every bench/*.bench.mjs in name order against the built dist/.
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
console.log(`node ${process.version}, ${process.platform}-${process.arch}`);
for (const file of files) {
  console.log(`\n${file.replace('.bench.mjs', '')}`);
  const { default: run } = await import(pathToFileURL(join(here, file)).href);
  await run();
}
