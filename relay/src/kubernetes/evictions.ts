import { backoffMs } from "@quiesce/protocol";
import type { PodInfo, Refusal } from "./objects";

/**
 * The drain's decisions, pure: which pods of the node to evict, with which grace period, when to
 * try a refused eviction again, and whether the drain is done, waiting, or failed at its deadline.
 */

/** What `kubectl drain` leaves alone too: pods that would come straight back, or are done. */
export type Skipped = "DaemonSet" | "mirror" | "finished";

export const MIRROR_ANNOTATION = "kubernetes.io/config.mirror";
/** The API's default when a pod sets no `terminationGracePeriodSeconds`. */
export const DEFAULT_GRACE_SECONDS = 30;
/** A pod should be gone this long before the deadline, so the drain sees it go in time. */
export const SLACK_MS = 1_000;
/** 429 (a PodDisruptionBudget) and other refusals are retried after 1 s, doubling to 5 s. */
export const RETRY = { baseMs: 1_000, maxMs: 5_000, jitter: "equal" } as const;

export function skipReason(pod: PodInfo): Skipped | undefined {
  // DaemonSet pods tolerate a cordon and would be re-created on this node at once.
  if (pod.controllerKind === "DaemonSet") return "DaemonSet";
  // A mirror pod stands for a static pod the kubelet runs from a file: the API cannot remove it.
  if (pod.annotations[MIRROR_ANNOTATION] !== undefined) return "mirror";
  if (pod.phase === "Succeeded" || pod.phase === "Failed") return "finished";
  return undefined;
}

/**
 * The grace period to evict with: the pod's own, capped so it ends (with SLACK_MS to spare)
 * before the drain's deadline, which itself ends QUIESCE_HOOK_SAFETY_MARGIN_SECONDS before
 * NotBefore. Never below 1 s: 0 would ask the API server to delete at once, without SIGTERM.
 */
export function graceSeconds(pod: PodInfo, nowMs: number, deadlineMs: number): number {
  const own = pod.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
  const left = Math.floor((deadlineMs - nowMs - SLACK_MS) / 1000);
  return Math.max(1, Math.min(own, left));
}

/** What the drain knows of each pod it acted on, by uid. */
export interface PodProgress {
  readonly evictedWithGrace?: number;
  readonly refusals: number;
  readonly nextTryMs: number;
  readonly lastRefusal?: string;
}
export type Progress = Readonly<Record<string, PodProgress>>;

export interface Eviction {
  readonly pod: PodInfo;
  readonly graceSeconds: number;
}

/**
 * The evictions to send now. A pod another actor already deletes (AKS's auto-drain, an
 * operator) is evicted again only if its deletion would end after the deadline: a second
 * delete may shorten a grace period, and that is what the Spot fast path needs.
 */
export function dueEvictions(
  pods: readonly PodInfo[],
  progress: Progress,
  nowMs: number,
  deadlineMs: number,
): Eviction[] {
  return pods.flatMap((pod) => {
    if (skipReason(pod)) return [];
    const p = progress[pod.uid];
    if (p?.evictedWithGrace !== undefined) return [];
    if (p && p.nextTryMs > nowMs) return [];
    if (pod.deletionMs !== undefined && pod.deletionMs <= deadlineMs - SLACK_MS) return [];
    return [{ pod, graceSeconds: graceSeconds(pod, nowMs, deadlineMs) }];
  });
}

export type EvictionAnswer =
  | { readonly kind: "evicted"; readonly graceSeconds: number }
  /** 404: gone already (a resumed drain, or it finished meanwhile). */
  | { readonly kind: "gone" }
  | { readonly kind: "refused"; readonly refusal: Refusal };

export function afterEviction(
  progress: Progress,
  pod: PodInfo,
  answer: EvictionAnswer,
  nowMs: number,
  random: number = Math.random(),
): Progress {
  const before = progress[pod.uid] ?? { refusals: 0, nextTryMs: nowMs };
  if (answer.kind === "evicted")
    return { ...progress, [pod.uid]: { ...before, evictedWithGrace: answer.graceSeconds } };
  if (answer.kind === "gone") return { ...progress, [pod.uid]: { ...before, evictedWithGrace: 0 } };
  const refusals = before.refusals + 1;
  return {
    ...progress,
    [pod.uid]: {
      refusals,
      nextTryMs: nowMs + backoffMs(refusals, RETRY, random),
      lastRefusal: answer.refusal.message,
    },
  };
}

export type Verdict =
  | { readonly done: true; readonly detail: string }
  | { readonly done: false; readonly failed?: string };

const label = (p: PodInfo) => `${p.namespace}/${p.name}`;

/** Why a pod is still there, for the failure's reason. */
function why(pod: PodInfo, p: PodProgress | undefined, nowMs: number): string {
  if (p?.lastRefusal && p.evictedWithGrace === undefined)
    return `eviction refused ${p.refusals}×: ${p.lastRefusal}`;
  if (pod.deletionMs !== undefined)
    return `terminating, ${Math.max(0, Math.ceil((pod.deletionMs - nowMs) / 1000))} s of grace left`;
  if (p?.evictedWithGrace !== undefined) return `evicted, not gone yet`;
  return "not evicted yet";
}

/**
 * Done when no pod that needs evicting is left on the node; failed once the deadline has passed
 * with some left (naming each and why); waiting otherwise.
 */
export function verdict(
  node: string,
  pods: readonly PodInfo[],
  progress: Progress,
  nowMs: number,
  deadlineMs: number,
): Verdict {
  const left = pods.filter((p) => !skipReason(p));
  if (left.length === 0) {
    const evicted = Object.values(progress).filter((p) => p.evictedWithGrace !== undefined).length;
    const skipped = pods.length;
    return {
      done: true,
      detail: `node ${node} drained: ${evicted} pod(s) evicted${skipped ? `, ${skipped} left in place (DaemonSet, mirror or finished)` : ""}`,
    };
  }
  if (nowMs < deadlineMs) return { done: false };
  const shown = left.slice(0, 10).map((p) => `${label(p)} (${why(p, progress[p.uid], nowMs)})`);
  const more = left.length > shown.length ? `, and ${left.length - shown.length} more` : "";
  return {
    done: false,
    failed: `node ${node} not drained by the deadline: ${left.length} pod(s) left: ${shown.join("; ")}${more}`,
  };
}
