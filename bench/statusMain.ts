import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { measureStatusScale, renderStatusScale } from "./statusScale";

/**
 * `node bench/run.mjs --status-only` (and every `npm run bench`): the status API at scale, on its
 * own, written to bench/results/status-scale.{json,md}; bench/main.ts folds it into latest.md.
 */
async function main() {
  const root = resolve(process.argv[2] ?? process.cwd());
  const out = join(root, "bench", "results");
  mkdirSync(out, { recursive: true });
  process.stderr.write("bench: (e) status API at 3,000 events and 1,800 members...\n");
  const result = {
    date: new Date().toISOString(),
    machine: { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, node: process.version },
    ...(await measureStatusScale()),
  };
  writeFileSync(join(out, "status-scale.json"), `${JSON.stringify(result, null, 2)}\n`);
  const md = `# Status API at scale\n\n${result.date}, ${result.machine.cpu.replace(/\s+/g, " ").trim()}, ${result.machine.cores} cores, Node ${result.machine.node}. Run again with \`node bench/run.mjs --status-only\`.\n\n${renderStatusScale(result)}`;
  writeFileSync(join(out, "status-scale.md"), md);
  process.stdout.write(md);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
