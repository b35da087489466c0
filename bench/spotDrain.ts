import { delay } from "@quiesce/protocol";
import { eventKey } from "@quiesce/protocol/imds";
import { startE2eCluster } from "@quiesce/testkit/cluster";
import { waitFor } from "@quiesce/testkit/wait";
import { round, type Summary, summary } from "./stats";

/**
 * The Spot fast path on Kubernetes: a Preempt names a node pool VM running 10 pods of a
 * ReplicaSet, each with a termination grace period that its app uses to the end (the worst case),
 * beside a DaemonSet pod. Azure's Preempt notice is 30 s at most and "often … less than 10 s"
 * (Azure/karpenter-provider-azure#1769), so each case sets the notice and the pods' grace: 30 s
 * with 5 s pods (the case measured since the Kubernetes drain landed), and 30 s, 10 s and 5 s
 * with pods that ask for 30 s, more than the notice leaves. The relay runs with its default
 * QUIESCE_HOOK_SAFETY_MARGIN_SECONDS (10). The whole local system at time scale 1 (Azurite, the
 * coordinator, the fabric simulator with its Kubernetes stand-in, one real relay per VM with the
 * built-in drain through @kubernetes/client-node). First sight = the relay's drain hook starting
 * (it starts when the relay first reads the event from IMDS, with no round trip); empty = the
 * first instant the stand-in has none of the 10 pods left on the node (sampled every 10 ms).
 */

const SS = "aks-spotpool-12345678-vmss";
const PODS = 10;

/** One measured case: the Preempt's notice and the pods' own grace period. */
export interface SpotCase {
  noticeSeconds: number;
  graceSeconds: number;
}
export const SPOT_CASES: readonly SpotCase[] = [
  { noticeSeconds: 30, graceSeconds: 5 },
  { noticeSeconds: 30, graceSeconds: 30 },
  { noticeSeconds: 10, graceSeconds: 30 },
  { noticeSeconds: 5, graceSeconds: 30 },
];

export interface SpotSample {
  vm: string;
  /** First sight → the node cordoned (the relay's PATCH answered). */
  cordonedMs: number;
  /** First sight → the last eviction answered 201. */
  evictedMs: number;
  /** First sight → no evictable pod left on the node. */
  emptyMs: number;
  /** First sight → the relay recorded its drain as succeeded. */
  drainSucceededMs: number;
  /** First sight → StartRequests reached the fabric (the event approved). */
  approvedMs: number | null;
  /** NotBefore − first sight: what was left of the notice when the relay saw the event. */
  noticeLeftMs: number;
  /** The grace period the relay evicted with (the pods asked for the case's). */
  evictedWithGraceSeconds: number | null;
}

export interface SpotResult {
  pods: number;
  noticeSeconds: number;
  graceSeconds: number;
  samples: SpotSample[];
  emptyMs: Summary;
  drainSucceededMs: Summary;
  approvedMs: Summary;
}

/** Every case, `rounds` Preempts each, on one cluster (one VM per Preempt: it is deleted). */
export async function measureSpotDrains(
  rounds = 3,
  log: (s: string) => void = () => {},
  cases: readonly SpotCase[] = SPOT_CASES,
): Promise<SpotResult[]> {
  const e = await startE2eCluster(
    {
      groups: [
        {
          kind: "scaleSetPlacementGroup",
          name: "spotpool-pg0",
          scaleSetName: SS,
          vms: rounds * cases.length + 1,
        },
      ],
    },
    {},
    {
      kubernetes: { drain: true, recreateAfterMs: 1_000 },
      // The relay's default, not the end-to-end tests' 0: what an operator runs.
      relaySettings: {},
    },
  );
  try {
    const results: SpotResult[] = [];
    for (const [k, spot] of cases.entries()) {
      log(`Preempt with a ${spot.noticeSeconds} s notice, pods of ${spot.graceSeconds} s grace...`);
      results.push(await measureCase(e, spot, k * rounds, rounds, log));
    }
    return results;
  } finally {
    await e.stop();
  }
}

async function measureCase(
  e: Awaited<ReturnType<typeof startE2eCluster>>,
  spot: SpotCase,
  firstVm: number,
  rounds: number,
  log: (s: string) => void,
): Promise<SpotResult> {
  const { c } = e;
  const k8s = c.fabric.kubernetes;
  const samples: SpotSample[] = [];
  for (let i = firstVm; i < firstVm + rounds; i++) {
    const vm = `${SS}_${i}`;
    const node = k8s.nodeOfVm(vm).name;
    k8s.addPods({
      pods: [
        ...Array.from({ length: PODS }, (_, p) => ({
          name: `web-${i}-${p}`,
          namespace: "shop",
          vm,
          labels: { app: "web" },
          owner: { kind: "ReplicaSet", name: "web-5c6d" },
          terminationGracePeriodSeconds: spot.graceSeconds,
        })),
        {
          name: `kube-proxy-${i}`,
          namespace: "kube-system",
          vm,
          owner: { kind: "DaemonSet", name: "kube-proxy" },
        },
      ],
    });
    const since = k8s.requests().at(-1)?.seq ?? 0;
    const ev = c.fabric.schedule({
      eventType: "Preempt",
      resources: [vm],
      noticeSeconds: spot.noticeSeconds,
    });
    let emptyAt: number | undefined;
    // The grace periods the pods were deleted with (the relay's evictions), as the API saw them.
    const graces: number[] = [];
    const sampler = (async () => {
      while (emptyAt === undefined) {
        const left = k8s.pods().filter((p) => p.node === node && p.owner?.kind === "ReplicaSet");
        for (const p of left)
          if (p.deletionGracePeriodSeconds !== undefined) graces.push(p.deletionGracePeriodSeconds);
        if (left.length === 0) emptyAt = Date.now();
        else await delay(10);
      }
    })();
    const relay = c.relays.get(vm);
    const drain = await waitFor(
      `${vm}'s drain succeeded`,
      () => {
        const d = relay?.state().state.events[eventKey(ev.eventId)]?.drain;
        return d?.status === "succeeded" || d?.status === "failed" ? d : null;
      },
      60_000,
      10,
    );
    await sampler;
    const firstSight = Date.parse(drain.startedAt);
    const requests = k8s.requests(since);
    const cordon = requests.find((r) => r.verb === "patch" && r.status === 200);
    const evictions = requests.filter((r) => r.resource === "pods/eviction" && r.status === 201);
    const started = await waitFor(
      `${ev.eventId} started`,
      () => c.fabric.event(ev.eventId)?.startedAt,
      60_000,
      20,
    );
    const sim = c.fabric.event(ev.eventId);
    // Simulated time runs at 1x here; the offset turns the relay's wall clock into fabric time.
    const simOffset = started.simMs - started.realMs;
    const s: SpotSample = {
      vm,
      cordonedMs: (cordon?.realMs ?? Number.NaN) - firstSight,
      evictedMs: Math.max(...evictions.map((r) => r.realMs)) - firstSight,
      emptyMs: (emptyAt as number) - firstSight,
      drainSucceededMs: Date.parse(drain.finishedAt ?? drain.startedAt) - firstSight,
      approvedMs: sim?.approvedAt ? sim.approvedAt.realMs - firstSight : null,
      noticeLeftMs: (sim?.notBeforeMs ?? Number.NaN) - (firstSight + simOffset),
      evictedWithGraceSeconds: graces.length > 0 ? Math.max(...graces) : null,
    };
    if (drain.status !== "succeeded") log(`round ${i}: drain ${drain.status}: ${drain.detail}`);
    log(`round ${i}: empty ${s.emptyMs} ms after first sight, approved ${s.approvedMs} ms`);
    samples.push(s);
  }
  const ok = (xs: (number | null)[]) =>
    xs.filter((x): x is number => x !== null && Number.isFinite(x));
  return {
    pods: PODS,
    noticeSeconds: spot.noticeSeconds,
    graceSeconds: spot.graceSeconds,
    samples,
    emptyMs: summary(samples.map((s) => s.emptyMs)),
    drainSucceededMs: summary(samples.map((s) => s.drainSucceededMs)),
    approvedMs: summary(ok(samples.map((s) => s.approvedMs))),
  };
}

/** Seconds, or — when nothing was measured. */
const sec = (ms: number | null | undefined) =>
  ms === null || ms === undefined || !Number.isFinite(ms) ? "—" : `${round(ms / 1000)}`;

/** One line per case, then each case's rounds. */
export function renderSpotDrains(results: readonly SpotResult[]): string {
  const line = (r: SpotResult) => {
    const graces = [...new Set(r.samples.map((s) => s.evictedWithGraceSeconds ?? Number.NaN))];
    // What the approval left of the notice (simulated NotBefore − StartRequests), the worst round.
    const leftAtApproval = r.samples.map((s) =>
      s.approvedMs === null ? Number.NaN : s.noticeLeftMs - s.approvedMs,
    );
    return `| ${r.noticeSeconds} s | ${r.graceSeconds} s | ${graces.map((g) => (Number.isNaN(g) ? "—" : `${g} s`)).join(", ")} | **${sec(r.emptyMs.median)}** (max ${sec(r.emptyMs.max)}) | **${sec(r.approvedMs.median)}** (max ${sec(r.approvedMs.max)}) | ${sec(Math.min(...leftAtApproval))} |`;
  };
  return `Preempt of a node running ${results[0]?.pods ?? PODS} pods of a ReplicaSet, each using its whole grace period, and a DaemonSet pod; seconds after first sight (the relay's drain starting), the relay at its default safety margin (10 s).

| notice | pods' grace | evicted with grace | first sight → node empty, median | → StartRequests (approved), median | notice left at approval, worst round |
| --- | --- | --- | --- | --- | --- |
${results.map(line).join("\n")}

${results.map((r) => `### ${r.noticeSeconds} s notice, pods of ${r.graceSeconds} s grace\n\n${renderSpotDrain(r)}`).join("\n")}`;
}

export function renderSpotDrain(r: SpotResult): string {
  const row = (s: SpotSample) =>
    `| ${s.vm} | ${sec(s.cordonedMs)} | ${sec(s.evictedMs)} | ${sec(s.emptyMs)} | ${sec(s.drainSucceededMs)} | ${sec(s.approvedMs)} | ${round(s.noticeLeftMs / 1000, 1)} |`;
  return `| VM | cordoned | last eviction sent | node empty | drain succeeded | approved | notice left at first sight |
| --- | --- | --- | --- | --- | --- | --- |
${r.samples.map(row).join("\n")}
`;
}
