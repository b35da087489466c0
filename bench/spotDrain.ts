import { delay } from "@quiesce/protocol";
import { eventKey } from "@quiesce/protocol/imds";
import { startE2eCluster } from "@quiesce/testkit/cluster";
import { waitFor } from "@quiesce/testkit/wait";
import { round, type Summary, summary } from "./stats";

/**
 * The Spot fast path on Kubernetes: a Preempt (30 s notice) names a node pool VM running 10 pods
 * of a ReplicaSet, each with a 5 s termination grace period that its app uses to the end (the
 * worst case), beside a DaemonSet pod. The whole local system at time scale 1 (Azurite, the
 * coordinator, the fabric simulator with its Kubernetes stand-in, one real relay per VM with the
 * built-in drain through @kubernetes/client-node). First sight = the relay's drain hook starting
 * (it starts when the relay first reads the event from IMDS, with no round trip); empty = the
 * first instant the stand-in has none of the 10 pods left on the node (sampled every 10 ms).
 */

const SS = "aks-spotpool-12345678-vmss";
const PODS = 10;
const GRACE_SECONDS = 5;

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
  /** NotBefore − first sight: what was left of the 30 s when the relay saw the event. */
  noticeLeftMs: number;
}

export interface SpotResult {
  pods: number;
  graceSeconds: number;
  samples: SpotSample[];
  emptyMs: Summary;
  drainSucceededMs: Summary;
  approvedMs: Summary;
}

export async function measureSpotDrain(
  rounds = 5,
  log: (s: string) => void = () => {},
): Promise<SpotResult> {
  const e = await startE2eCluster(
    {
      groups: [
        { kind: "scaleSetPlacementGroup", name: "spotpool-pg0", scaleSetName: SS, vms: rounds + 1 },
      ],
    },
    {},
    { kubernetes: { drain: true, recreateAfterMs: 1_000 } },
  );
  const { c } = e;
  const k8s = c.fabric.kubernetes;
  const samples: SpotSample[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
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
            terminationGracePeriodSeconds: GRACE_SECONDS,
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
      const ev = c.fabric.schedule({ eventType: "Preempt", resources: [vm] });
      let emptyAt: number | undefined;
      const sampler = (async () => {
        while (emptyAt === undefined) {
          if (!k8s.pods().some((p) => p.node === node && p.owner?.kind === "ReplicaSet"))
            emptyAt = Date.now();
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
      };
      if (drain.status !== "succeeded") log(`round ${i}: drain ${drain.status}: ${drain.detail}`);
      log(`round ${i}: empty ${s.emptyMs} ms after first sight, approved ${s.approvedMs} ms`);
      samples.push(s);
    }
  } finally {
    await e.stop();
  }
  const ok = (xs: (number | null)[]) =>
    xs.filter((x): x is number => x !== null && Number.isFinite(x));
  return {
    pods: PODS,
    graceSeconds: GRACE_SECONDS,
    samples,
    emptyMs: summary(samples.map((s) => s.emptyMs)),
    drainSucceededMs: summary(samples.map((s) => s.drainSucceededMs)),
    approvedMs: summary(ok(samples.map((s) => s.approvedMs))),
  };
}

export function renderSpotDrain(r: SpotResult): string {
  const row = (s: SpotSample) =>
    `| ${s.vm} | ${round(s.cordonedMs / 1000)} | ${round(s.evictedMs / 1000)} | ${round(s.emptyMs / 1000)} | ${round(s.drainSucceededMs / 1000)} | ${s.approvedMs === null ? "—" : round(s.approvedMs / 1000)} | ${round(s.noticeLeftMs / 1000, 1)} |`;
  return `Preempt (30 s notice) of a node running ${r.pods} pods with a ${r.graceSeconds} s grace period each (used to the end) and a DaemonSet pod; seconds after first sight (the relay's drain starting).

| | median | p90 | min | max |
| --- | --- | --- | --- | --- |
| **first sight → node empty** | ${round(r.emptyMs.median / 1000)} | ${round(r.emptyMs.p90 / 1000)} | ${round(r.emptyMs.min / 1000)} | ${round(r.emptyMs.max / 1000)} |
| first sight → drain succeeded (relay) | ${round(r.drainSucceededMs.median / 1000)} | ${round(r.drainSucceededMs.p90 / 1000)} | ${round(r.drainSucceededMs.min / 1000)} | ${round(r.drainSucceededMs.max / 1000)} |
| first sight → StartRequests (approved) | ${round(r.approvedMs.median / 1000)} | ${round(r.approvedMs.p90 / 1000)} | ${round(r.approvedMs.min / 1000)} | ${round(r.approvedMs.max / 1000)} |

| VM | cordoned | last eviction sent | node empty | drain succeeded | approved | notice left at first sight |
| --- | --- | --- | --- | --- | --- | --- |
${r.samples.map(row).join("\n")}
`;
}
