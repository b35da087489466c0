import { randomUUID } from "node:crypto";
import {
  type ApprovalResult,
  carryOverUnreadable,
  type Directive,
  entryOf,
  type ImdsHealth,
  type ImdsProblem,
  PROTOCOL_VERSION,
  type RelayReport,
  type ScheduledEventsDocument,
  type VmIdentity,
} from "@quiesce/shared";
import { type Clock, delay, jitter, systemClock } from "./clock";
import type { RelaySettings } from "./config";
import { type TokenSource, tokenSource } from "./coordinator/auth";
import { CoordinatorClient } from "./coordinator/client";
import { planApproval } from "./core/approve";
import {
  dueHooks,
  type HookAction,
  hookFinished,
  hookStarted,
  markInterrupted,
  observeDocument,
  prune,
  recordApprovals,
  reportedHooks,
  requestRecover,
} from "./core/reconcile";
import type { RelayState } from "./core/state";
import { hookTimeoutMs } from "./core/timeouts";
import type { HookOutcome } from "./hooks/outcome";
import { type HookRunner, hookRunner } from "./hooks/runner";
import { ImdsClient, type ImdsClientOptions, type ScheduledEventsRead } from "./imds/client";
import { errorText, jsonLogger, type Logger } from "./log";
import { loadState, StateWriter } from "./stateFile";
import { RELAY_VERSION } from "./version";

export interface RelayOptions {
  logger?: Logger;
  clock?: Clock;
  /** Tuning of IMDS retries and timeouts (tests, the simulator's time scale). */
  imds?: Partial<Omit<ImdsClientOptions, "baseUrl" | "apiVersion">>;
  /** Backoff between failed reports: jittered, doubling from baseMs to maxMs. */
  reportRetry?: { baseMs: number; maxMs: number };
  /** Bounds on the coordinator's nextReportInSeconds. */
  heartbeatBoundsMs?: { min: number; max: number };
  tokens?: TokenSource;
  hooks?: HookRunner;
}

export interface RelaySnapshot {
  vm: VmIdentity | undefined;
  document: ScheduledEventsDocument | null;
  state: RelayState;
  bootId: string;
  seq: number;
  coordinator: {
    reports: number;
    failuresInARow: number;
    lastError?: string;
    lastAnswerAt?: string;
  };
}

export interface RelayHandle {
  /** Stops polling and reporting, interrupts running hooks, writes the state. Never exits the process. */
  stop(): Promise<void>;
  state(): RelaySnapshot;
}

const DEFAULT_RETRY = { baseMs: 1_000, maxMs: 10_000 };
const DEFAULT_HEARTBEAT_BOUNDS = { min: 1_000, max: 300_000 };

/**
 * The imperative shell around the core: three independent loops (IMDS polling, hooks, reports)
 * sharing one state, so the coordinator or a slow hook never delays the next IMDS poll.
 */
export async function startRelay(
  settings: RelaySettings,
  opts: RelayOptions = {},
): Promise<RelayHandle> {
  const log = opts.logger ?? jsonLogger(settings.QUIESCE_LOG_LEVEL);
  const clock = opts.clock ?? systemClock;
  const now = () => clock.now();
  const iso = () => new Date(now()).toISOString();
  const retry = opts.reportRetry ?? DEFAULT_RETRY;
  const bounds = opts.heartbeatBoundsMs ?? DEFAULT_HEARTBEAT_BOUNDS;
  const runHook = opts.hooks ?? hookRunner(settings);
  const dryRun = settings.QUIESCE_DRY_RUN;
  const stopping = new AbortController();
  const bootId = randomUUID();

  const writer = new StateWriter(settings.QUIESCE_STATE_FILE, (e) =>
    log.error("state file write failed", {
      file: settings.QUIESCE_STATE_FILE,
      error: errorText(e),
    }),
  );
  const loaded = await loadState(settings.QUIESCE_STATE_FILE);
  if (loaded.problem) log.warn(loaded.problem, { file: settings.QUIESCE_STATE_FILE });
  // A hook recorded as running belongs to a previous process that stopped under it.
  let state = markInterrupted(loaded.state, now(), "relay stopped while the hook ran");
  writer.write(state);

  const imds = new ImdsClient({
    baseUrl: settings.QUIESCE_IMDS_URL,
    apiVersion: settings.QUIESCE_IMDS_API_VERSION,
    ...opts.imds,
    onRetry: (r) => log.debug("IMDS retry", r),
  });
  const coordinator = new CoordinatorClient(
    settings.QUIESCE_COORDINATOR_URL,
    opts.tokens ?? tokenSource(settings),
  );

  let vm: VmIdentity | undefined;
  let latest: ScheduledEventsDocument | null = null;
  let latestText = "";
  /** What the last read could not make out; reported until a read is clean again. */
  let imdsProblems: ImdsProblem[] = [];
  let imdsProblemsText = "[]";
  let seq = 0;
  const stats: RelaySnapshot["coordinator"] = { reports: 0, failuresInARow: 0 };
  const inFlight = new Set<Promise<unknown>>();
  const approving = new Set<string>();

  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  };

  // --- report scheduling: anything that changes what we would report wakes the reporter.
  let dirty = true;
  let wake: (() => void) | undefined;
  const reportSoon = () => {
    dirty = true;
    wake?.();
  };
  const sleepUnlessWoken = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      wake = done;
      function done() {
        clearTimeout(t);
        wake = undefined;
        resolve();
      }
      if (stopping.signal.aborted) done();
    });

  const setState = (next: RelayState) => {
    if (next === state) return;
    state = next;
    writer.write(state);
    reportSoon();
  };

  // --- hooks
  const startDueHooks = () => {
    if (stopping.signal.aborted || !vm) return;
    for (const action of dueHooks(state)) startHook(action, vm);
  };

  const startHook = (action: HookAction, identity: VmIdentity) => {
    setState(hookStarted(state, action, now()));
    const rec = entryOf(state.events, action.key);
    const run = rec?.[action.kind];
    if (!rec || !run) return;
    const timeoutMs = hookTimeoutMs(
      action.kind,
      rec.event,
      now(),
      settings.QUIESCE_HOOK_TIMEOUT_SECONDS,
      settings.QUIESCE_HOOK_SAFETY_MARGIN_SECONDS,
    );
    const payload = {
      hook: action.kind,
      attempt: run.attempt,
      deadline: new Date(now() + timeoutMs).toISOString(),
      dryRun,
      vm: identity,
      event: rec.event,
    };
    log.info(`${action.kind} hook started`, {
      eventId: rec.eventId,
      eventType: rec.event.EventType,
      attempt: run.attempt,
      timeoutSeconds: Math.round(timeoutMs / 1000),
    });
    track(
      runHook(payload, timeoutMs, stopping.signal)
        .catch(
          (e): HookOutcome => ({
            result: "failed",
            detail: `hook runner failed: ${errorText(e)}`,
            output: "",
          }),
        )
        .then((outcome) => hookDone(action, rec.eventId, outcome)),
    );
  };

  const hookDone = (action: HookAction, eventId: string, outcome: HookOutcome) => {
    const fields = {
      eventId,
      result: outcome.result,
      detail: outcome.detail,
      output: outcome.output || undefined,
    };
    if (outcome.result === "interrupted") {
      // Left as running on purpose: stop() records it as interrupted once everything has ended.
      log.warn(`${action.kind} hook interrupted`, fields);
      return;
    }
    if (outcome.result === "succeeded") log.info(`${action.kind} hook succeeded`, fields);
    else log.error(`${action.kind} hook failed`, fields);
    setState(
      prune(
        hookFinished(
          state,
          action,
          { ok: outcome.result === "succeeded", detail: outcome.detail },
          now(),
        ),
        now(),
      ),
    );
    startDueHooks(); // a recover may have been waiting for this drain
  };

  // --- IMDS polling
  let lastProblem = "";
  const problem = (text: string) => {
    if (text !== lastProblem) log.warn(text);
    else log.debug(text);
    lastProblem = text;
  };

  // Reported to the coordinator, which alerts on a relay whose IMDS reads keep failing.
  let imdsHealth: ImdsHealth | undefined;
  const imdsFailed = (error: string) => {
    const failuresInARow = (imdsHealth?.failuresInARow ?? 0) + 1;
    imdsHealth = {
      failuresInARow,
      since: imdsHealth?.since ?? iso(),
      lastError: error.slice(0, 512),
    };
    // The first failure is reported at once; the growing count rides on the heartbeats (an IMDS
    // outage must not turn every relay into a fast reporter).
    if (failuresInARow === 1) reportSoon();
  };

  const setImdsProblems = (next: ImdsProblem[]) => {
    const text = JSON.stringify(next);
    if (text === imdsProblemsText) return;
    if (next.length > 0) log.warn("IMDS document partly unreadable; reported", { problems: next });
    imdsProblems = next;
    imdsProblemsText = text;
    reportSoon();
  };

  const onRead = (read: ScheduledEventsRead) => {
    if (read.kind === "unchanged") {
      imdsHealth = undefined;
      return;
    }
    if (read.kind === "malformed") {
      imdsFailed(`malformed: ${read.error}`);
      setImdsProblems(read.problems);
      return problem(`IMDS document malformed, kept the last one: ${read.error}`);
    }
    if (read.kind === "unavailable") {
      imdsFailed(read.error);
      return problem(`IMDS unavailable: ${read.error}`);
    }
    if (imdsHealth) reportSoon();
    imdsHealth = undefined;
    if (lastProblem) log.info("IMDS answering again");
    lastProblem = "";
    setImdsProblems(read.problems);
    // An unreadable event is not one that left: keep the last readable version of what it may be.
    const document = carryOverUnreadable(latest, read) ?? read.document;
    const text = JSON.stringify(document);
    if (text === latestText || !vm) return;
    latest = document;
    latestText = text;
    log.info("document changed", {
      incarnation: document.DocumentIncarnation,
      events: document.Events.map((e) => ({
        id: e.EventId,
        type: e.EventType,
        status: e.EventStatus,
        resources: e.Resources.length,
      })),
    });
    // One line per event, each with its eventId: `grep <EventId>` (or jq on .eventId) follows an
    // event through this VM's journal, with the same facts the coordinator counts in metrics.
    for (const e of document.Events)
      log.info("event seen", {
        eventId: e.EventId,
        eventType: e.EventType,
        eventStatus: e.EventStatus,
        notBefore: e.NotBefore || undefined,
        affectsThisVm: e.Resources.some((r) => r.toLowerCase() === vm?.name.toLowerCase()),
        resources: e.Resources.length,
        incarnation: document.DocumentIncarnation,
      });
    setState(prune(observeDocument(state, document, vm.name, now()), now()));
    reportSoon();
    startDueHooks();
  };

  const acquireIdentity = async (): Promise<VmIdentity | undefined> => {
    for (let wait = 1_000; !stopping.signal.aborted; wait = Math.min(wait * 2, 30_000)) {
      try {
        return await imds.readIdentity(stopping.signal);
      } catch (e) {
        if (stopping.signal.aborted) return undefined;
        log.warn("instance metadata not available yet; retrying", { error: errorText(e) });
        await delay(jitter(wait), stopping.signal);
      }
    }
    return undefined;
  };

  const pollLoop = async () => {
    vm = await acquireIdentity();
    if (!vm) return;
    log.info("relay identity", { vm: vm.name, vmId: vm.vmId, resourceId: vm.resourceId });
    reportSoon();
    startDueHooks(); // owed recovers from before a restart that the document cannot trigger
    while (!stopping.signal.aborted) {
      const started = performance.now();
      try {
        onRead(await imds.readScheduledEvents(stopping.signal));
      } catch (e) {
        problem(`IMDS poll failed: ${errorText(e)}`);
      }
      await delay(
        Math.max(0, settings.QUIESCE_POLL_INTERVAL_MS - (performance.now() - started)),
        stopping.signal,
      );
    }
  };

  // --- approvals (only ever on a directive)
  const approve = async (eventIds: string[]) => {
    const plan = planApproval(latest, eventIds, state.approvals, now());
    const post = plan.post.filter((id) => !approving.has(id.toLowerCase()));
    for (const s of plan.skipped)
      log.info("approve directive skipped", { eventId: s.eventId, detail: s.detail });
    let results: ApprovalResult[] = plan.skipped;
    if (post.length > 0 && dryRun) {
      log.info("dry run: StartRequests not posted", { eventIds: post });
      results = [
        ...results,
        ...post.map((eventId) => ({
          eventId,
          outcome: "skipped" as const,
          at: iso(),
          detail: "dry run: StartRequests not posted",
        })),
      ];
    } else if (post.length > 0) {
      for (const id of post) approving.add(id.toLowerCase());
      try {
        log.info("posting StartRequests", { eventIds: post });
        const answer = await imds.postStartRequests(post, stopping.signal);
        const at = iso();
        const r = (
          outcome: ApprovalResult["outcome"],
          httpStatus: number | undefined,
          detail: string,
        ) =>
          post.map(
            (eventId): ApprovalResult => ({
              eventId,
              outcome,
              at,
              httpStatus,
              detail: detail.slice(0, 1024),
            }),
          );
        if ("error" in answer) results = [...results, ...r("failed", undefined, answer.error)];
        else if (answer.status >= 200 && answer.status <= 299)
          results = [...results, ...r("accepted", answer.status, "IMDS accepted StartRequests")];
        else if (answer.status >= 500)
          results = [...results, ...r("failed", answer.status, answer.body.slice(0, 300))];
        else results = [...results, ...r("rejected", answer.status, answer.body.slice(0, 300))];
        const last = results[results.length - 1];
        for (const eventId of post)
          (last?.outcome === "accepted" ? log.info : log.error)("StartRequests answered", {
            eventId,
            outcome: last?.outcome,
            httpStatus: last?.httpStatus,
            detail: last?.detail,
          });
      } finally {
        for (const id of post) approving.delete(id.toLowerCase());
      }
    }
    if (results.length > 0) setState(recordApprovals(state, results, now()));
  };

  const onDirectives = (directives: Directive[]) => {
    for (const d of directives) {
      if (d.kind === "approve") {
        track(
          approve(d.eventIds).catch((e) => log.error("approval failed", { error: errorText(e) })),
        );
      } else {
        const next = requestRecover(state, d.eventId);
        if (next === state)
          log.debug("recover directive: nothing owed for this event", { eventId: d.eventId });
        else log.info("recover directive", { eventId: d.eventId });
        setState(next);
        startDueHooks();
      }
    }
  };

  // --- reporting
  const buildReport = (identity: VmIdentity): RelayReport => ({
    protocol: PROTOCOL_VERSION,
    cluster: settings.QUIESCE_CLUSTER,
    vm: identity,
    relay: { version: RELAY_VERSION, bootId, seq: seq++, dryRun },
    document: latest,
    hooks: reportedHooks(state),
    approvals: state.approvals,
    sentAt: iso(),
    ...(imdsHealth ? { imds: imdsHealth } : {}),
    // Only when there is something to say: a coordinator before 1.1 need never see the field.
    ...(imdsProblems.length > 0 ? { imdsProblems } : {}),
  });

  // Protocol 1.1: hook states the coordinator has not yet shown it holds in storage. Until it
  // does, report at the active interval, even with nothing new to say: the coordinator may have
  // answered and then lost the write (a storage crash), and only a read-back proves it kept it.
  let unacknowledged = false;
  let activeMs: number | undefined;
  const reportLoop = async () => {
    let heartbeatMs = bounds.min;
    let backoff = retry.baseMs;
    while (!stopping.signal.aborted) {
      if (!vm || !dirty) {
        await sleepUnlessWoken(vm ? heartbeatMs : 60_000);
        if (!vm || stopping.signal.aborted) continue;
      }
      dirty = false;
      const report = buildReport(vm);
      const outcome = await coordinator.report(report, stopping.signal);
      if (stopping.signal.aborted) break;
      if (outcome.ok) {
        if (stats.failuresInARow > 0)
          log.info("coordinator reachable again", { after: stats.failuresInARow });
        stats.failuresInARow = 0;
        stats.reports++;
        stats.lastAnswerAt = iso();
        stats.lastError = undefined;
        backoff = retry.baseMs;
        const { hooksStored, activeReportSeconds } = outcome.response;
        if (activeReportSeconds !== undefined) activeMs = activeReportSeconds * 1000;
        unacknowledged = unacknowledgedHooks(report, hooksStored);
        const askedMs = outcome.response.nextReportInSeconds * 1000;
        heartbeatMs = Math.min(
          bounds.max,
          Math.max(bounds.min, unacknowledged && activeMs ? Math.min(askedMs, activeMs) : askedMs),
        );
        log.debug("report sent", {
          applied: outcome.response.applied,
          directives: outcome.response.directives.length,
          nextReportInSeconds: outcome.response.nextReportInSeconds,
        });
        for (const skip of outcome.skipped)
          log.warn("directive skipped: not understood by this relay version", { ...skip });
        onDirectives(outcome.response.directives);
      } else {
        stats.failuresInARow++;
        stats.lastError = outcome.error;
        // First failure and then every tenth: an outage must not flood the journal.
        if (stats.failuresInARow === 1 || stats.failuresInARow % 10 === 0) {
          log.warn("report failed; polling and hooks continue", {
            error: outcome.error,
            failuresInARow: stats.failuresInARow,
          });
        }
        dirty = true; // the current view is still owed, whatever changes meanwhile
        await delay(jitter(backoff), stopping.signal);
        // While something is owed (events in the document, hook states not yet stored) retry
        // at least at the active interval, so the cluster converges within one interval of the
        // coordinator answering again.
        const owed = unacknowledged || (latest?.Events.length ?? 0) > 0;
        const cap = owed && activeMs ? Math.min(retry.maxMs, activeMs) : retry.maxMs;
        backoff = Math.min(backoff * 2, cap);
      }
    }
  };

  log.info("relay starting", {
    version: RELAY_VERSION,
    bootId,
    cluster: settings.QUIESCE_CLUSTER,
    coordinator: settings.QUIESCE_COORDINATOR_URL,
    imds: settings.QUIESCE_IMDS_URL,
    authMode: settings.QUIESCE_AUTH_MODE,
    dryRun,
    stateFile: settings.QUIESCE_STATE_FILE,
  });
  const loops = [pollLoop(), reportLoop()].map((p) =>
    p.catch((e) => log.error("relay loop crashed", { error: errorText(e) })),
  );

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        log.info("relay stopping");
        stopping.abort();
        wake?.();
        await Promise.allSettled(loops);
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        state = markInterrupted(state, now(), "relay stopped while the hook ran");
        writer.write(state);
        await writer.flush();
        await Promise.allSettled([imds.close(), coordinator.close()]);
        log.info("relay stopped", { bootId });
      })();
      return stopped;
    },
    state: () => ({ vm, document: latest, state, bootId, seq, coordinator: { ...stats } }),
  };
}

/** Whether the report carried hook states the coordinator did not list as already stored. */
function unacknowledgedHooks(report: RelayReport, hooksStored: string[] | undefined): boolean {
  if (hooksStored === undefined) return false; // a 1.0 coordinator does not say
  const stored = new Set(hooksStored.map((id) => id.toLowerCase()));
  return report.hooks.some((h) => !stored.has(h.eventId.toLowerCase()));
}
