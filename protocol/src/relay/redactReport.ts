import { redact } from "../redact";
import type { HookRun, RelayReport } from "./v1";

/**
 * The free text of a report (hook and approval details, IMDS errors and problems: what hooks,
 * IMDS and upstream servers wrote) with secrets redacted, each kept within its field's limit.
 * The relay applies it before sending and the coordinator on receipt: an older or buggy relay
 * must not put a token into the status API either.
 */
export function redactReport(report: RelayReport): RelayReport {
  const text = (s: string, max: number) => redact(s).slice(0, max);
  const run = (h: HookRun | undefined) =>
    h?.detail === undefined ? h : { ...h, detail: text(h.detail, 1024) };
  const out: RelayReport = {
    ...report,
    hooks: report.hooks.map((h) => {
      const drain = run(h.drain);
      const recover = run(h.recover);
      return { ...h, ...(drain ? { drain } : {}), ...(recover ? { recover } : {}) };
    }),
    approvals: report.approvals.map((a) =>
      a.detail === undefined ? a : { ...a, detail: text(a.detail, 1024) },
    ),
  };
  if (report.imds) out.imds = { ...report.imds, lastError: text(report.imds.lastError, 512) };
  if (report.imdsProblems)
    out.imdsProblems = report.imdsProblems.map((p) => ({ ...p, detail: text(p.detail, 512) }));
  return out;
}
