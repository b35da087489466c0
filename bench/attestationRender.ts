import type { AttestationCost, AttestationResult } from "./attestation";

/** latest.md's section for (k), the cost of a report with attestation (bench/attestation.ts). */

const row = (what: string, c: AttestationCost) =>
  `| ${what} | ${c.ms.median} / ${c.ms.p90} | ${c.cpuMsPerReport} | ${c.tableOps.reads} / ${c.tableOps.queries} / ${c.tableOps.writes} | ${c.armReadsPerReport} |`;

export function renderAttestation(r: AttestationResult): string[] {
  return [
    "## (k) Attestation: what a report costs",
    "",
    `${r.vms} VMs of the fabric simulator, one cluster; the real report handler in process on Azurite, the fabric's IMDS signing attested documents with its test CA and its loopback ARM answering the VM reads. Idle heartbeats side by side (${r.rounds} rounds per VM, alternating): attestation off, and bound under \`require\` (the token's hash compared with the member row every report reads). Then the reports that bind: the challenge (403 with a nonce), the first proof of each VM (verification plus the one ARM read) and a re-attestation after a relay restart within the period (verification only). CPU is the coordinator's process (with the simulated ARM answering the read). The coordinator's very first proof also fetched the intermediate by AIA once: ${r.firstEverProofMs} ms. Measured ${r.date}.`,
    "",
    "| Report | ms (median / p90) | CPU ms per report | Table reads / queries / writes per report | ARM reads per report |",
    "| --- | --- | --- | --- | --- |",
    row("heartbeat, attestation off", r.off),
    row("heartbeat, bound (token)", r.bound),
    row("unbound: challenge (403)", r.challenge),
    row("first proof: verification + ARM read", r.firstProof),
    row("re-attestation within the period", r.reattest),
    "",
  ];
}
