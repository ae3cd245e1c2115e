// node run.mjs <program.mjs> <out.json>: runs the program against the stand-ins and writes what it
// constructed, the problems found, and its stack exports.
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { calls, problems } from "@gpu-platform-test/record";

const [program, out] = process.argv.slice(2);
const exported = await import(pathToFileURL(program).href);
writeFileSync(out, JSON.stringify({ calls, problems, exports: { ...exported } }, null, 2));
