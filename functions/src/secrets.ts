import { addSecrets } from "@quiesce/protocol";
import type { CoordinatorOptions } from "./options";

/**
 * The settings whose values are secrets, registered with @quiesce/protocol's redact at start-up
 * (docs/security.md, "Secrets never leave"): from then on no log line, status answer or
 * notification can carry them, even where an upstream error or a relay repeats one. A webhook
 * URL counts whole and by its long path segments and query values (its key is in them).
 */
export function registerSettingSecrets(o: CoordinatorOptions): void {
  addSecrets([
    o.store.connectionString,
    o.notify.teamsUrl,
    o.notify.slackUrl,
    o.notify.webhookUrl,
    o.notify.webhookSecret,
    o.controlPlaneEvents.eventGridKey ?? undefined,
    ...(o.auth.mode === "sharedKey" ? [o.auth.relayKey, o.auth.operatorKey, o.auth.readerKey] : []),
  ]);
}
