import type { ApprovalResult } from "@quiesce/protocol/relay";
import { classifyStartRequestsAnswer, planApproval } from "../decisions/approve";
import { recordApprovals } from "../decisions/reconcile";
import type { ImdsClient } from "../imds/client";
import type { RelayContext } from "./context";

/**
 * Posts StartRequests, and only on the coordinator's approve directive: for the directed ids
 * still Scheduled in the latest document (planApproval), never twice at once for one id.
 */
export class Approver {
  private readonly posting = new Set<string>();

  constructor(
    private readonly ctx: RelayContext,
    private readonly imds: ImdsClient,
  ) {}

  async approve(eventIds: string[]): Promise<void> {
    const { ctx } = this;
    const { log } = ctx;
    const plan = planApproval(ctx.latest, eventIds, ctx.state.approvals, ctx.now());
    const post = plan.post.filter((id) => !this.posting.has(id.toLowerCase()));
    for (const s of plan.skipped)
      log.info("approve directive skipped", { eventId: s.eventId, detail: s.detail });
    let results: ApprovalResult[] = plan.skipped;
    if (post.length > 0 && ctx.config.dryRun) {
      log.info("dry run: StartRequests not posted", { eventIds: post });
      results = [
        ...results,
        ...post.map((eventId) => ({
          eventId,
          outcome: "skipped" as const,
          at: ctx.iso(),
          detail: "dry run: StartRequests not posted",
        })),
      ];
    } else if (post.length > 0) {
      for (const id of post) this.posting.add(id.toLowerCase());
      try {
        log.info("posting StartRequests", { eventIds: post });
        const answer = await this.imds.postStartRequests(post, ctx.stopping.signal);
        const answered = classifyStartRequestsAnswer(post, answer, ctx.iso());
        results = [...results, ...answered];
        for (const r of answered)
          (r.outcome === "accepted" ? log.info : log.error)("StartRequests answered", {
            eventId: r.eventId,
            outcome: r.outcome,
            httpStatus: r.httpStatus,
            detail: r.detail,
          });
      } finally {
        for (const id of post) this.posting.delete(id.toLowerCase());
      }
    }
    if (results.length > 0) ctx.setState(recordApprovals(ctx.state, results, ctx.now()));
  }
}
