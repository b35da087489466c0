#!/usr/bin/env node
// CI's dependency check: fails when `npm audit` reports a high or critical advisory. Where the
// registry's advisory endpoint cannot be reached (some mirrors answer 405 to its POST), it says
// so plainly and does not fail: the check was not made, and the log shows it.
import { spawnSync } from "node:child_process";

const r = spawnSync("npm", ["audit", "--audit-level=high", "--json"], {
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
let report;
try {
  report = JSON.parse(r.stdout);
} catch {
  console.error(`npm audit: no JSON answer (exit ${r.status}): ${r.stderr.slice(0, 500)}`);
  process.exit(1);
}
const counts = report?.metadata?.vulnerabilities;
if (!counts) {
  const why = report?.statusCode ? `HTTP ${report.statusCode}` : (report?.message ?? "no answer");
  console.log(`npm audit: NOT CHECKED, the advisory endpoint is unreachable from here (${why})`);
  process.exit(0);
}
const serious = (counts.high ?? 0) + (counts.critical ?? 0);
const names = Object.values(report.vulnerabilities ?? {})
  .filter((v) => v.severity === "high" || v.severity === "critical")
  .map((v) => `${v.name} (${v.severity})`);
console.log(
  `npm audit: ${counts.total ?? 0} advisories, ${serious} high or critical${names.length ? `: ${names.join(", ")}` : ""}`,
);
process.exit(serious > 0 ? 1 : 0);
