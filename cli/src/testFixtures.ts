/**
 * What the CLI's tests share. Not part of the command: nothing but tests imports this file.
 */

/**
 * An advisory event (a Spot rebalance recommendation: nothing to approve) as the status API sends
 * it, every field of the wire document present.
 */
export const ADVISORY_EVENT = {
  eventId: "5B0A1D2C-0000-4E7F-8A9B-0C1D2E3F4A5B",
  cluster: "web",
  eventType: "SpotRebalanceRecommendation",
  eventSource: "Platform",
  durationInSeconds: -1,
  description: "",
  status: "Scheduled",
  phase: "Observed",
  phaseSince: "2026-11-23T04:46:06.691Z",
  notBefore: null,
  resources: ["web-0"],
  firstSeenAt: "2026-11-23T04:46:06.691Z",
  firstSeenBy: "web-0",
  startedFirst: null,
  published: null,
  advisory: true,
  startedAt: null,
  endedAt: null,
  approval: {
    rule: null,
    approvedAt: null,
    approvedBy: null,
    lease: null,
    failedApprovers: [],
    via: null,
    controlPlane: null,
  },
  hold: null,
  forceApprove: null,
  gateOverrides: [],
  waitingFor: "advisory: Spot rebalance recommendation, nothing to approve",
  blockers: [],
  drained: [],
  gates: [],
  maintenanceWindow: null,
  changeRecord: null,
} as const;
