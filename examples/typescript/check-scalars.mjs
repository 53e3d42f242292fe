// Fails unless every custom scalar of the schema (argument 1, SDL) has a precise type in the
// `Scalars` map graphql-codegen generated (argument 2): input and output present, and neither
// `unknown` nor `any` (what a scalar missing from codegen.yml's map would become).
import { readFileSync } from "node:fs";

const [sdlPath, generatedPath] = process.argv.slice(2);
const sdl = readFileSync(sdlPath, "utf8");
const generated = readFileSync(generatedPath, "utf8");

const custom = [...sdl.matchAll(/^scalar (\w+)/gm)].map((m) => m[1]);
const block = generated.match(/export type Scalars = \{\n([\s\S]*?)\n\};/);
if (!block) {
  console.error(`no Scalars type in ${generatedPath}`);
  process.exit(1);
}
const types = new Map();
for (const line of block[1].split("\n")) {
  const m = line.match(/^\s+(\w+): \{ input: (.*); output: (.*); \}$/);
  if (m) types.set(m[1], { input: m[2].trim(), output: m[3].trim() });
}

const problems = [];
for (const name of custom) {
  const type = types.get(name);
  if (!type) {
    problems.push(`${name}: not in the generated Scalars`);
    continue;
  }
  for (const side of ["input", "output"]) {
    if (["unknown", "any"].includes(type[side])) problems.push(`${name}: ${side} is ${type[side]}`);
  }
}
if (custom.length === 0) problems.push("the schema has no custom scalar: wrong file?");
if (problems.length > 0) {
  console.error(`scalars typed imprecisely:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`== ${custom.length} custom scalars, each with a precise type: ${custom.join(", ")}`);
