import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { repoRoot } from "./bicep";

/**
 * Every function app.ts registers has the binding extensions it needs. "The Azure Functions
 * runtime natively runs HTTP and timer triggers. The behaviors of the other supported triggers
 * and bindings are implemented in separate extension packages", which a Node app gets from the
 * extension bundle named in host.json (learn.microsoft.com "Register Azure Functions binding
 * extensions" and "Azure Functions extension bundles", whose example is
 * `Microsoft.Azure.Functions.ExtensionBundle`, version `[4.0.0, 5.0.0)`). Without it the host
 * does not index the function (an Event Grid subscription to it then fails validation).
 *
 * The registrations are read by running app.ts against a recording `app`, and each is turned
 * into its binding types by the real `@azure/functions` `trigger`/`input`/`output` helpers, so a
 * new trigger of any kind is checked the day it is added.
 */

interface Registration {
  method: string;
  name: string;
  options: Record<string, unknown>;
}
const registrations: Registration[] = [];

vi.mock("@azure/functions", async (importActual) => {
  const actual = await importActual<typeof import("@azure/functions")>();
  const app = new Proxy(
    {},
    {
      get: (_target, method: string) => (name: string, options: Record<string, unknown>) => {
        registrations.push({ method, name, options });
      },
    },
  );
  return { ...actual, app };
});

/** Built into the Functions host (no extension needed). */
const BUILT_IN = new Set(["httpTrigger", "http", "timerTrigger"]);
/** app.http's shorthands. */
const HTTP_METHODS = new Set(["http", "get", "put", "post", "patch", "deleteRequest"]);

async function bindingTypes(r: Registration): Promise<string[]> {
  const { trigger } = await vi.importActual<typeof import("@azure/functions")>("@azure/functions");
  const triggers = trigger as unknown as Record<string, (o: unknown) => { type: string }>;
  let triggerType: string;
  if (HTTP_METHODS.has(r.method)) triggerType = "httpTrigger";
  else if (r.method === "generic") triggerType = (r.options.trigger as { type: string }).type;
  else if (typeof triggers[r.method] === "function") {
    const { handler: _h, extraInputs: _i, extraOutputs: _o, return: _r, ...config } = r.options;
    triggerType = triggers[r.method]?.(config).type as string;
  } else throw new Error(`app.${r.method} (${r.name}): unknown registration; add it to this test`);
  const extra = [
    ...((r.options.extraInputs as { type: string }[] | undefined) ?? []),
    ...((r.options.extraOutputs as { type: string }[] | undefined) ?? []),
    ...(r.options.return ? [r.options.return as { type: string }] : []),
  ].map((b) => b.type);
  return [triggerType, ...extra];
}

/** The lowest major version a NuGet-style range such as `[4.0.0, 5.0.0)` or `[4.*, 5.0.0)` admits. */
function lowestMajor(range: string): number | null {
  const m = /^\[\s*(\d+)\.[\d*]+(?:\.[\d*]+)?\s*,\s*(\d+)\.0\.0\s*\)$/.exec(range);
  return m ? Number(m[1]) : null;
}

describe("functions/host.json bindings", () => {
  it("names the extension bundle (major 4) when any function app.ts registers needs one, and every registration is known", async () => {
    await import("../../functions/src/app.js");
    expect(registrations.length).toBeGreaterThan(0);
    const host = JSON.parse(readFileSync(join(repoRoot, "functions", "host.json"), "utf8")) as {
      extensionBundle?: { id?: string; version?: string };
    };
    const needing: string[] = [];
    for (const r of registrations) {
      const types = await bindingTypes(r);
      for (const t of types) if (!BUILT_IN.has(t)) needing.push(`${r.name}: ${t}`);
    }
    // Today: the Event Grid trigger (maintenanceEvents).
    expect(needing).toContain("maintenanceEvents: eventGridTrigger");
    expect(host.extensionBundle, `needed by ${needing.join(", ")}`).toMatchObject({
      id: "Microsoft.Azure.Functions.ExtensionBundle",
    });
    expect(lowestMajor(host.extensionBundle?.version ?? "")).toBe(4);
  }, 60_000);
});
