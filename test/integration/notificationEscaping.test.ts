import {
  applyReport,
  type ClusterState,
  coverage,
  type EventRecord,
  emptyClusterState,
  tick,
} from "@quiesce/core";
import {
  controlPlaneUnavailableNotification,
  coverageNotifications,
  eventNotifications,
  imdsNotification,
  type Notification,
} from "@quiesce/functions";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import { DEFAULT_POLICY, NOTIFICATION_KINDS, type Policy } from "@quiesce/protocol/policy";
import { RelayReport } from "@quiesce/protocol/relay";
import { useAzurite } from "@quiesce/testkit/azurite";
import { drained, report, run, scheduled, started, T0 } from "@quiesce/testkit/documents";
import {
  freezeEvent,
  makeReport,
  postReport,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import {
  HOSTILE_TEXT,
  HOSTILE_VM,
  hostileEventId,
  QuiesceWebhookMessage,
  SlackWebhookMessage,
  slackProblems,
  slackUnescaped,
  TeamsWorkflowMessage,
  teamsProblems,
  useSinkReceiver,
  withoutJoiners,
} from "@quiesce/testkit/notifications";
import { describe, expect, it } from "vitest";
import { patchRunNotification } from "../../functions/src/guestPatching/notification";

/**
 * Issue 21: what relays, hooks and Azure write reaches Slack and Teams as text. Hostile event
 * ids, VM names, descriptions, hook output and IMDS errors go through the core and notify/due.ts
 * into every notification kind, then through the real notifier, outbox (Azurite) and sinks to
 * the loopback receiver: each message passes its service's schema, shows the values literally,
 * and holds no mention, link or markup but Quiesce's own status-page link.
 */

const azurite = useAzurite();
const SECRET = "e".repeat(40);
const sinks = useSinkReceiver(SECRET);
const PAGE = "https://quiesce.example/api/ui";

const policy: Policy = {
  ...DEFAULT_POLICY,
  notify: { ...DEFAULT_POLICY.notify, blockedAfterMinutes: 5, imdsFailuresBeforeAlert: 1 },
};

/**
 * A relay's report from a VM whose scale set name is hostile too (coverage groups name it); one
 * scale set per VM, so one VM's event never waits for the other's.
 */
const from = (vm: string, incarnation: number, events: ScheduledEvent[], o = {}): RelayReport => {
  const r = report(vm, incarnation, events, o);
  const set = `ss-${vm.length} <!here> [x](https://evil.example)`;
  return { ...r, vm: { ...r.vm, vmScaleSetName: set } };
};

/**
 * Walks the core through one event of each fate, every id, VM name, description and hook detail
 * hostile, and collects what notify/due.ts makes due along the way: every kind there is.
 */
function everyKind(): Notification[] {
  const [a, b, c, d, r] = ["A", "B", "C", "D", "R"].map(hostileEventId) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const ghost = "ghost <@U123>";
  const other = "web-2 **x**";
  const desc = { Description: HOSTILE_TEXT };
  const evA = scheduled(a, [HOSTILE_VM, ghost], desc); // never drains: fails, blocks, expires
  const evB = scheduled(b, [HOSTILE_VM], desc); // approved, started, completed
  const evC = started(scheduled(c, [other], desc)); // first seen Started: unplanned
  const evD = scheduled(d, [other], desc); // leaves while Scheduled: cancelled
  const evR = scheduled(r, [other], { ...desc, EventType: "SpotRebalanceRecommendation" }); // advisory
  let state: ClusterState = emptyClusterState("web");
  let now = T0;
  const due = new Map<string, Notification>();
  const collect = () => {
    for (const e of Object.values(state.events) as EventRecord[])
      for (const n of eventNotifications(state, e, now, policy, { withBlocked: true }))
        due.set(n.key, n);
    for (const n of coverageNotifications(coverage(state, now, policy), now, policy))
      due.set(n.key, n);
  };
  const send = (r: RelayReport) => {
    now += 1000;
    // Each report is one the coordinator accepts: the hostile values are all admissible input.
    state = applyReport(state, RelayReport.parse(r), now, policy).state;
    collect();
  };
  const failed = { ...run("failed"), detail: HOSTILE_TEXT };
  send(from(HOSTILE_VM, 1, [evA, evB]));
  send(from(HOSTILE_VM, 1, [evA, evB], { hooks: [{ eventId: a, drain: failed }, drained(b)] }));
  const at = new Date(now).toISOString();
  send(
    from(HOSTILE_VM, 1, [evA, evB], {
      hooks: [{ eventId: a, drain: failed }, drained(b)],
      approvals: [{ eventId: b, outcome: "accepted", at }],
    }),
  );
  // C and D only now: C, in flight from first sight, would hold the cluster's budget of one.
  send(from(other, 1, [evC, evD, evR]));
  send(from(other, 2, [evC]));
  send(from(HOSTILE_VM, 2, [evA, started(evB)], { hooks: [drained(b)] }));
  send(from(HOSTILE_VM, 3, [evA], { hooks: [drained(b, "succeeded")] }));
  // A refused attestation proof, in the relay's own words (what IMDS said, echoed).
  now += 1000;
  const problem = { code: "noDocument", detail: HOSTILE_TEXT, at: now, bootId: "boot <!here>" };
  state = applyReport(
    state,
    RelayReport.parse(from(HOSTILE_VM, 3, [evA], { hooks: [drained(b, "succeeded")] })),
    now,
    policy,
    { attestation: { binding: null, unbound: null, problem } },
  ).state;
  collect();
  now = T0 + 6 * 60_000; // past blockedAfterMinutes
  collect();
  now = T0 + 16 * 60_000; // past NotBefore: Azure starts A on its own
  state = tick(state, now, policy).state;
  collect();
  now = T0 + 60 * 60_000; // every relay silent, its scale set uncovered
  collect();
  const imds = { failuresInARow: 3, since: new Date(T0).toISOString(), lastError: HOSTILE_TEXT };
  const n = imdsNotification("web", HOSTILE_VM, imds, policy);
  if (n) due.set(n.key, n);
  // A group (named by its relays' IMDS) relying on ARM approval where Azure does not offer it.
  const support = { region: "westeurope", availability: "notAvailable" as const, since: T0 };
  const cp = controlPlaneUnavailableNotification(
    "web",
    { kind: "placementGroup", name: HOSTILE_TEXT, because: "noLiveRelay" },
    { ...support, checkedAt: T0, how: "probe", detail: "405 NotImplemented" },
    policy,
  );
  if (cp) due.set(cp.key, cp);
  // An Update Manager run that could not be cancelled, with Azure's words in it.
  const gp = patchRunNotification(
    "web",
    {
      correlationId: `/x/applyupdates/${HOSTILE_TEXT}`,
      maintenanceConfigurationId: HOSTILE_TEXT,
      startAt: T0,
    },
    { state: "failed", reason: HOSTILE_TEXT, detail: HOSTILE_TEXT },
    [a],
    T0,
    policy,
  );
  if (gp) due.set(gp.key, gp);
  return [...due.values()];
}

/** Delivers everything queued, batch after batch. */
async function deliverAll(c: TestCoordinator): Promise<void> {
  while ((await c.deps.notifier.deliverDue()).delivered > 0);
}

const slackTexts = (body: unknown) =>
  SlackWebhookMessage.parse(body).blocks.flatMap((b) => [
    ...("text" in b && b.text ? [b.text.text] : []),
    ...("fields" in b && b.fields ? b.fields.map((f) => f.text) : []),
  ]);
const teamsRuns = (body: unknown) =>
  (TeamsWorkflowMessage.parse(body).attachments[0]?.content.body ?? []).map((el) =>
    el.type === "RichTextBlock" ? el.inlines.map((i) => i.text).join("") : "",
  );

const ICON = { info: ":information_source:", warning: ":warning:", critical: ":rotating_light:" };
/** Each notification's words as the operator reads them in Slack and in Teams. */
const shown = (n: Notification) => ({
  slack: [
    // A header holds 150 characters as sent (escaped): a longer title is cut with an ellipsis.
    expect.toSatisfy(
      (h: string) => h === n.title || (h.endsWith("…") && n.title.startsWith(h.slice(0, -1))),
      `the title of ${n.kind}`,
    ),
    `${ICON[n.severity]} ${n.text}`,
    ...n.facts.flatMap((f) => [f.name, f.value || "-"]),
  ],
  teams: [n.title, n.text, ...n.facts.map((f) => `${f.name}: ${f.value || "-"}`)],
});

describe("text from outside Quiesce in Teams and Slack messages", () => {
  it("arrives as literal text, with no mention, link or markup, for every notification kind", async () => {
    const ns = everyKind();
    expect(new Set(ns.map((n) => n.kind))).toEqual(new Set(NOTIFICATION_KINDS));
    const c = await testCoordinator(azurite().connectionString, {
      clock: sinks.clock,
      settings: sinks.sinkSettings({}, { QUIESCE_STATUS_PAGE_URL: PAGE }),
    });
    const start = sinks.receiver.received.length;
    await c.deps.notifier.enqueue(ns, policy);
    await deliverAll(c);
    const got = sinks.receiver.received.slice(start);

    // The webhook keeps the raw values: its receiver decides what to make of them.
    const hooks = got
      .filter((m) => m.sink === "webhook")
      .map((m) => QuiesceWebhookMessage.parse(m.body));
    expect(new Set(hooks.map((h) => h.kind))).toEqual(new Set(NOTIFICATION_KINDS));
    for (const n of ns) {
      const h = hooks.find((x) => x.text === n.text && x.kind === n.kind);
      expect(h).toMatchObject({
        title: n.title,
        facts: n.facts,
        ...(n.eventId ? { eventId: n.eventId } : {}),
      });
    }
    expect(hooks.some((h) => h.text.includes(HOSTILE_TEXT))).toBe(true);

    const slack = got.filter((m) => m.sink === "slack").map((m) => m.body);
    const teams = got.filter((m) => m.sink === "teams").map((m) => m.body);
    expect([slack.length, teams.length]).toEqual([ns.length, ns.length]);
    for (const body of slack) expect(slackProblems(body, PAGE)).toEqual([]);
    for (const body of teams) expect(teamsProblems(body, PAGE)).toEqual([]);
    // Each notification shows its words unchanged (but for invisible joiners), in both sinks.
    const slackShown = slack.map((b) =>
      slackTexts(b).map((t) => withoutJoiners(slackUnescaped(t))),
    );
    const teamsShown = teams.map((b) => teamsRuns(b).map(withoutJoiners));
    for (const n of ns) {
      expect(slackShown).toContainEqual(shown(n).slack);
      expect(teamsShown).toContainEqual(shown(n).teams);
    }
  });

  it("a relay's hostile event id, Azure's description and a drain hook's output reach Slack and Teams as text through the report path, with the status-page link to that event", async () => {
    const c = await testCoordinator(azurite().connectionString, {
      clock: sinks.clock,
      settings: sinks.sinkSettings(
        { default: { notify: { on: ["observed", "drainFailed"] } } },
        { QUIESCE_STATUS_PAGE_URL: PAGE },
      ),
    });
    const id = hostileEventId("R");
    const ev = freezeEvent([HOSTILE_VM], { EventId: id, Description: HOSTILE_TEXT });
    const start = sinks.receiver.received.length;
    await postReport(c, makeReport(HOSTILE_VM, { events: [ev] }));
    const failed = {
      status: "failed" as const,
      attempt: 1,
      startedAt: new Date(sinks.clock.now()).toISOString(),
      detail: HOSTILE_TEXT,
    };
    const answer = await postReport(
      c,
      withHooks(makeReport(HOSTILE_VM, { events: [ev], seq: 2 }), [{ eventId: id, drain: failed }]),
    );
    expect(answer.status).toBe(200);
    await c.deps.notifier.settled();
    const got = sinks.receiver.received.slice(start);
    const kinds = sinks.webhookMessages(start).map((h) => h.kind);
    expect(kinds.sort()).toEqual(["drainFailed", "observed"]);
    const link = `${PAGE}#/events/web/${encodeURIComponent(id)}`;
    for (const m of got.filter((x) => x.sink === "slack")) {
      expect(slackProblems(m.body, PAGE)).toEqual([]);
      expect(JSON.stringify(m.body)).toContain(
        `<${link.replaceAll("&", "&amp;")}|Open in the status page>`,
      );
    }
    const teams = got.filter((x) => x.sink === "teams");
    for (const m of teams) {
      expect(teamsProblems(m.body, PAGE)).toEqual([]);
      expect(TeamsWorkflowMessage.parse(m.body).attachments[0]?.content.actions).toEqual([
        { type: "Action.OpenUrl", title: "Open in the status page", url: link },
      ]);
    }
    const drainFailed = teams
      .map((m) => teamsRuns(m.body).map(withoutJoiners))
      .find((r) => r[1]?.startsWith("The drain hook failed"));
    expect(drainFailed?.[1]).toBe(`The drain hook failed on ${HOSTILE_VM}: ${HOSTILE_TEXT}.`);
    expect(drainFailed).toContain(`Description: ${HOSTILE_TEXT}`);
    expect(drainFailed).toContain(`Event: ${id}`);
  });
});

const withHooks = (r: RelayReport, hooks: RelayReport["hooks"]): RelayReport => ({ ...r, hooks });
