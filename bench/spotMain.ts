import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { measureSpotDrains, renderSpotDrains } from "./spotDrain";

/**
 * `node bench/run.mjs --spot-only`: the Spot fast path on Kubernetes (a Preempt's first sight →
 * an empty node), on its own, written to bench/results/spot-drain.{json,md}.
 */
async function main() {
  const root = resolve(process.argv[2] ?? process.cwd());
  const out = join(root, "bench", "results");
  mkdirSync(out, { recursive: true });
  const log = (s: string) => process.stderr.write(`bench: ${s}\n`);
  log("Spot fast path: Preempt first sight -> empty node, 30/10/5 s notices...");
  const result = {
    date: new Date().toISOString(),
    machine: { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, node: process.version },
    cases: await measureSpotDrains(Number(process.env.BENCH_SPOT_ROUNDS ?? "3"), log),
  };
  writeFileSync(join(out, "spot-drain.json"), `${JSON.stringify(result, null, 2)}\n`);
  const md = `# Spot fast path on Kubernetes\n\n${result.date}, ${result.machine.cpu.replace(/\s+/g, " ").trim()}, ${result.machine.cores} cores, Node ${result.machine.node}. Run again with \`node bench/run.mjs --spot-only\`.\n\n${renderSpotDrains(result.cases)}`;
  writeFileSync(join(out, "spot-drain.md"), md);
  process.stdout.write(md);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
