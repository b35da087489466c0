import { addSecrets } from "@quiesce/protocol";
import type { CoordinatorSettings } from "./config";

/**
 * The settings whose values are secrets, registered with @quiesce/protocol's redact at start-up
 * (docs/security.md, "Secrets never leave"): from then on no log line, status answer or
 * notification can carry them, even where an upstream error or a relay repeats one. A webhook
 * URL counts whole and by its long path segments and query values (its key is in them).
 */
export function registerSettingSecrets(s: CoordinatorSettings): void {
  addSecrets([
    s.QUIESCE_STORAGE_CONNECTION_STRING,
    s.QUIESCE_TEAMS_WEBHOOK_URL,
    s.QUIESCE_SLACK_WEBHOOK_URL,
    s.QUIESCE_WEBHOOK_URL,
    s.QUIESCE_WEBHOOK_SECRET,
    s.QUIESCE_EVENT_GRID_KEY,
    ...(s.QUIESCE_AUTH_MODE === "sharedKey"
      ? [s.QUIESCE_RELAY_KEY, s.QUIESCE_OPERATOR_KEY, s.QUIESCE_READER_KEY]
      : []),
  ]);
}
