import type { EventView, OperatorVerb } from "../api";
import { h } from "../dom";
import { clock } from "../model/format";

export interface OperatorUi {
  /** Only principals with the operator role get buttons; the API refuses everyone else anyway. */
  canOperate: boolean;
  open(verb: OperatorVerb, e: EventView): void;
}

const BEFORE_APPROVAL = new Set(["Observed", "Draining", "Ready"]);

const LABEL: Record<OperatorVerb, string> = {
  hold: "Hold",
  release: "Release",
  "force-approve": "Force-approve",
};

/** The actions that make sense in the event's phase. */
export function operatorButtons(e: EventView, ops: OperatorUi): HTMLElement | false {
  // An advisory event has nothing to hold back or force: approving it has no effect.
  if (!ops.canOperate || e.endedAt !== null || e.advisory) return false;
  const verbs: OperatorVerb[] = [];
  if (BEFORE_APPROVAL.has(e.phase) && !e.hold) verbs.push("hold");
  if (e.hold || e.forceApprove) verbs.push("release");
  if (BEFORE_APPROVAL.has(e.phase) && !e.forceApprove) verbs.push("force-approve");
  if (verbs.length === 0) return false;
  return h(
    "div",
    { class: "actions", role: "group", "aria-label": `Operator actions for ${e.eventId}` },
    verbs.map((v) =>
      h(
        "button",
        { type: "button", class: `op op-${v}`, "data-verb": v, onclick: () => ops.open(v, e) },
        LABEL[v],
      ),
    ),
  );
}

/** The other operator's override a hold or force-approve would take the place of, if any. */
function overrideReplaced(verb: OperatorVerb, e: EventView) {
  if (verb === "hold" && e.forceApprove) return { what: "force-approve", ...e.forceApprove };
  if (verb === "force-approve" && e.hold) return { what: "hold", ...e.hold };
  return null;
}

/**
 * The confirmation dialog: names the action and the event, asks for a reason (and an expiry for
 * hold / force-approve), says whose override it replaces, and calls `submit` (with `replace`
 * only then: the API refuses to replace an override the operator was not shown); the API's
 * refusal is shown in the dialog.
 */
export function operatorDialog(
  submit: (
    verb: OperatorVerb,
    e: EventView,
    reason: string,
    ttlMinutes: number,
    replace: boolean,
  ) => Promise<void>,
): { element: HTMLDialogElement; open: OperatorUi["open"] } {
  const dialog = h("dialog", {
    id: "operator-dialog",
    class: "op-dialog",
    "aria-labelledby": "op-title",
  }) as HTMLDialogElement;
  const open: OperatorUi["open"] = (verb, e) => {
    const error = h("p", { class: "error", role: "alert", id: "op-error" });
    const reason = h("textarea", {
      id: "op-reason",
      name: "reason",
      required: true,
      maxlength: 512,
      rows: 2,
    }) as HTMLTextAreaElement;
    const ttl = h("input", {
      id: "op-ttl",
      name: "ttl",
      type: "number",
      min: 1,
      max: 1440,
      value: 60,
      required: true,
    }) as HTMLInputElement;
    const replacing = overrideReplaced(verb, e);
    const confirm = h(
      "button",
      { type: "submit", class: `op op-${verb}`, id: "op-confirm" },
      `Confirm ${LABEL[verb].toLowerCase()}`,
    );
    const form = h(
      "form",
      { method: "dialog" },
      h("h2", { id: "op-title" }, `${LABEL[verb]} ${e.eventType} ${e.eventId}?`),
      h(
        "p",
        {},
        verb === "hold"
          ? "Quiesce will not approve this event while the hold lasts; Azure still starts it at NotBefore."
          : verb === "release"
            ? "Removes the hold or force-approve; approval follows the rules again."
            : `Approves without waiting for ${e.blockers.length} blocking VM(s) to drain: ${e.resources.join(", ")} may be hit while serving.`,
      ),
      replacing &&
        h(
          "p",
          { class: "replaces", id: "op-replaces" },
          `This replaces the ${replacing.what} by ${replacing.by} (since ${clock(replacing.at)}, until ${clock(replacing.expiresAt)}): “${replacing.reason}”.`,
        ),
      h("label", { for: "op-reason" }, "Reason (recorded with your name)"),
      reason,
      verb !== "release" && [h("label", { for: "op-ttl" }, "Expires after (minutes)"), ttl],
      error,
      h(
        "div",
        { class: "dialog-buttons" },
        h("button", { type: "button", id: "op-cancel", onclick: () => dialog.close() }, "Cancel"),
        confirm,
      ),
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (!reason.value.trim()) {
        error.textContent = "A reason is required.";
        reason.focus();
        return;
      }
      confirm.setAttribute("disabled", "");
      submit(verb, e, reason.value.trim(), Number(ttl.value) || 60, replacing !== null).then(
        () => dialog.close(),
        (err: unknown) => {
          error.textContent = (err as Error).message;
          confirm.removeAttribute("disabled");
        },
      );
    });
    dialog.replaceChildren(form);
    dialog.showModal();
    reason.focus();
  };
  return { element: dialog, open };
}
