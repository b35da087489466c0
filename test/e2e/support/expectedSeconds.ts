/**
 * Each end-to-end file's time in the fresh-clone runs of docs/benchmarks.md, in seconds: the order
 * vitest.sequencer.ts starts them in where vitest has timed none (a fresh clone), longest first.
 */
export const E2E_SECONDS: Readonly<Record<string, number>> = {
  "test/e2e/chaos.test.ts": 50,
  "test/e2e/controlPlaneErrors.test.ts": 36,
  "test/e2e/kubernetes.test.ts": 32,
  "test/e2e/agentless.test.ts": 32,
  "test/e2e/statusPage.test.ts": 27,
  "test/e2e/loadBalancerDrain.test.ts": 24,
  "test/e2e/controlPlaneApproval.test.ts": 22,
  "test/e2e/lifecycle.test.ts": 22,
  "test/e2e/spot.test.ts": 21,
  "test/e2e/resilience.test.ts": 21,
  "test/e2e/metrics.test.ts": 20,
  "test/e2e/overlap.test.ts": 14,
  "test/e2e/loadBalancerCrash.test.ts": 9,
  "test/e2e/maintenanceWindows.test.ts": 9,
  "test/e2e/attestation.test.ts": 4,
};
