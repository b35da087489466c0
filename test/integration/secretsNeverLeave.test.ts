import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FabricSimulator } from "@quiesce/fabric-simulator";
import { jsonLogger } from "@quiesce/relay";
import { FAST_POLICY, type HookedCluster, startHookedCluster } from "@quiesce/testkit/cluster";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

/**
 * The rule "no secret reaches what operators read" (docs/security.md, "Secrets never leave"),
 * end to end: a canary is planted in every secret input of the relays and the coordinator, a
 * drain fails at every step (a Kubernetes token file ending in a newline, one the API refuses, a
 * drain URL whose `?code=` holds a key, a drain script that prints a bearer header and a SAS),
 * the notification sinks answer with errors that echo their secret paths, and every channel an
 * operator reads is searched for the canary: relay logs, coordinator logs, anything written to
 * stdout/stderr or the console, the status API (status, cluster, event with its history,
 * alerts), the status page, and every notification a sink received.
 */

const CANARY = `CANARY-SECRET-${randomBytes(6).toString("hex")}`;
const secret = (what: string) => `${CANARY}-${what}`;

interface Endpoints {
  server: Server;
  url: string;
  /** What the notification sinks received. */
  bodies: string[];
  /** The bearer tokens the coordinator sent to the agentless hook. */
  bearers: string[];
}

/**
 * Loopback Teams/Slack/webhook sinks and an agentless drain hook. Each fails the way a real
 * endpoint may, by echoing its secret: Slack refuses naming the path it was called on, the hook
 * refuses repeating the Authorization header it was sent.
 */
async function startEndpoints(): Promise<Endpoints> {
  const bodies: string[] = [];
  const bearers: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = (status: number, body: string) =>
        res.writeHead(status, { "content-type": "text/plain" }).end(body);
      if (req.url?.startsWith("/agentless/")) {
        const auth = req.headers.authorization ?? "";
        bearers.push(auth.replace(/^Bearer /, ""));
        return text(500, `refused\nsent: authorization=${auth} token=${auth.slice(7)}`);
      }
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      if (req.url?.startsWith("/services/")) return text(400, `no such hook: ${req.url}`);
      return text(202, "ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, bodies, bearers };
}

describe("no secret reaches a log, the status API, history, a notification or the page", () => {
  const dir = mkdtempSync(join(tmpdir(), "quiesce-canary-"));
  const relayLines: string[] = [];
  const coordinatorLines: string[] = [];
  const consoleLines: string[] = [];
  let sinks: Endpoints;
  let e: HookedCluster | undefined;

  beforeAll(async () => {
    for (const m of ["log", "info", "warn", "error", "debug"] as const)
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
        consoleLines.push(args.map(String).join(" "));
      });
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream);
      vi.spyOn(stream, "write").mockImplementation(((chunk: unknown, ...rest: never[]) => {
        consoleLines.push(String(chunk));
        return write(chunk as string, ...rest);
      }) as typeof stream.write);
    }
    sinks = await startEndpoints();
    // The coordinator's shared keys, as the local host keeps them.
    const keysDir = join(dir, "keys");
    mkdirSync(keysDir);
    writeFileSync(
      join(keysDir, "local-keys.json"),
      JSON.stringify({
        relayKey: secret("relay-key"),
        operatorKey: secret("operator-key"),
        readerKey: secret("reader-key"),
      }),
    );
    // A token file as `kubectl create token ... > file` writes it (a trailing newline), and one
    // the API server does not know.
    const newlineToken = join(dir, "token-newline");
    writeFileSync(newlineToken, `${secret("k8s-token")}\n`);
    const refusedToken = join(dir, "token-refused");
    writeFileSync(refusedToken, secret("k8s-refused"));
    // A drain script that fails the way curl does, printing what it sent.
    const script = join(dir, "drain.sh");
    writeFileSync(
      script,
      [
        `echo "Authorization: Bearer ${secret("script-bearer")}"`,
        `echo "upload to https://acct.blob.core.windows.net/c?sv=2024-05-04&sig=${secret("sas")} failed: 403 (AccountKey=${secret("account-key")})"`,
        "exit 1",
      ].join("\n"),
    );
    e = await startHookedCluster({
      cluster: "e2e",
      timeScale: 1,
      sweepIntervalMs: 500,
      topology: {
        groups: [
          {
            kind: "availabilitySet",
            name: "canary",
            vms: [
              "canary-0",
              "canary-1",
              "canary-2",
              "canary-3",
              { name: "canary-4", relay: false },
            ],
          },
        ],
      },
      policy: (fabric: FabricSimulator) => ({
        default: FAST_POLICY,
        clusters: {
          e2e: {
            // canary-4 runs no relay: the coordinator calls its drain hook with a bearer token.
            agentless: {
              enabled: true,
              maxAttempts: 1,
              drain: {
                url: `${sinks.url}/agentless/{vmName}?code=${secret("agentless-code")}`,
                timeoutSeconds: 5,
                bearerScope: "api://quiesce-canary/.default",
              },
            },
            azureResources: [
              `${fabric.arm.resourceGroupId()}/providers/Microsoft.Compute/availabilitySets/canary`,
            ],
            gates: [
              {
                kind: "http",
                name: "health",
                url: `${sinks.url}/health?code=${secret("gate-code")}`,
                bearerScope: "api://quiesce-canary/.default",
              },
            ],
          },
        },
      }),
      controlPlane: true,
      keysDir,
      kubernetes: { drain: true },
      relayLogger: (vm) => jsonLogger("debug", (line) => relayLines.push(line), { vm }),
      coordinatorLog: (level, message) => coordinatorLines.push(`${level} ${message}`),
      coordinatorSettings: {
        QUIESCE_TEAMS_WEBHOOK_URL: `${sinks.url}/workflows/${secret("teams")}/invoke?sig=${secret("teams-sig")}`,
        QUIESCE_SLACK_WEBHOOK_URL: `${sinks.url}/services/T000/B000/${secret("slack")}`,
        QUIESCE_WEBHOOK_URL: `${sinks.url}/webhook?code=${secret("webhook-code")}`,
        QUIESCE_WEBHOOK_SECRET: secret("webhook-hmac"),
        // Every ARM write carries an Azure Policy token (the simulator's are canaries), and the
        // event gets a change record: its PUT is such a write (docs/security.md).
        QUIESCE_CHANGE_SAFETY: JSON.stringify({
          policyToken: true,
          changeRecords: {
            scope: "/subscriptions/00000000-0000-4000-8000-000000000000/resourceGroups/quiesce-sim",
          },
        }),
      },
      relaySettings: { QUIESCE_HOOK_TIMEOUT_SECONDS: 3, QUIESCE_HOOK_SAFETY_MARGIN_SECONDS: 0 },
      relaySettingsFor: (vm) =>
        vm.endsWith("0")
          ? { QUIESCE_KUBERNETES_TOKEN_FILE: newlineToken }
          : vm.endsWith("1")
            ? { QUIESCE_KUBERNETES_TOKEN_FILE: refusedToken }
            : vm.endsWith("2")
              ? {
                  QUIESCE_KUBERNETES_DRAIN: false,
                  QUIESCE_DRAIN_COMMAND: undefined,
                  // Nothing listens on port 1: the POST fails before any answer.
                  QUIESCE_DRAIN_URL: `http://127.0.0.1:1/drain?code=${secret("drain-code")}`,
                }
              : { QUIESCE_KUBERNETES_DRAIN: false, QUIESCE_DRAIN_COMMAND: `sh ${script}` },
      relayOptions: { reportRetry: { baseMs: 200, maxMs: 1_000 } },
    });
  }, 60_000);

  afterAll(async () => {
    await e?.stop();
    await new Promise<void>((r) => sinks?.server.close(() => r()));
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds the canary in no output channel after a drain that fails at every step", async () => {
    if (!e) throw new Error("the cluster starts in beforeAll");
    const { c } = e;
    c.fabric.arm.setChangeSafety({
      missingTokenAction: "Deny",
      tokenPrefix: secret("policy-token"),
    });
    const eventId = c.fabric.schedule({
      eventType: "Reboot",
      resources: ["canary-0", "canary-1", "canary-2", "canary-3", "canary-4"],
      noticeSeconds: 300,
    }).eventId;
    // Every VM's drain failed and the coordinator shows it; every sink was tried.
    const detail = await waitFor(
      "every drain failed, shown and notified",
      async () => {
        const d = await c.status.event(eventId, c.cluster).catch(() => null);
        const failed = d?.blockers.filter((b) => /fail/i.test(JSON.stringify(b))) ?? [];
        const slackDropped = [...consoleLines, ...coordinatorLines].some((l) =>
          l.includes("dropped after"),
        );
        const recorded = c.fabric.arm.changeSafety().records.length > 0;
        return d && failed.length >= 5 && sinks.bodies.length >= 3 && slackDropped && recorded
          ? d
          : null;
      },
      25_000,
      200,
    );
    const reader = { authorization: `Bearer ${c.readerKey}` };
    const get = async (path: string) =>
      (await fetch(`${c.coordinatorUrl}${path}`, { headers: reader })).text();
    const channels: Record<string, string> = {
      "relay log": relayLines.join(""),
      "coordinator log": coordinatorLines.join("\n"),
      "console, stdout, stderr": consoleLines.join("\n"),
      "status API: event (history, blockers)": JSON.stringify(detail),
      "status API: cluster": JSON.stringify(await c.status.cluster(c.cluster)),
      "status API: status": await get("/api/status"),
      "status API: alerts": await get("/api/alerts"),
      "status page": (await get("/api/ui")) + (await get("/api/ui/config.json")),
      notifications: sinks.bodies.join("\n"),
    };
    const why = (vm: string) => detail.blockers.find((b) => b.vm === vm)?.detail ?? "";
    // The token with a trailing newline was trimmed and sent: the API server answered (401, it
    // knows neither canary token) instead of the client refusing the header.
    expect(why("canary-0")).toMatch(/401/);
    expect(why("canary-1")).toMatch(/401/);
    // Each failure still says what failed; only the secret is gone.
    expect(why("canary-2")).toContain("/drain?code=[REDACTED] failed");
    expect(why("canary-3")).toContain("sig=[REDACTED]");
    expect(why("canary-4")).toContain("HTTP 500");
    // The coordinator's own bearer tokens are secrets too: the hook received them.
    expect(sinks.bearers.length).toBeGreaterThan(0);
    // The policy tokens the coordinator was issued, and used: its change record went through Deny.
    const policyTokens = c.fabric.arm.changeSafety().tokens;
    expect(policyTokens.length).toBeGreaterThan(0);
    expect(c.fabric.arm.changeSafety().guarded.length).toBeGreaterThan(0);
    const secrets = [CANARY, ...new Set(sinks.bearers), ...policyTokens];
    const leaks = Object.entries(channels)
      .flatMap(([name, text]) => secrets.map((s) => [name, text, s] as const))
      .filter(([, text, s]) => text.includes(s))
      .map(([name, text, s]) => {
        const at = text.indexOf(s);
        return `${name}: …${text.slice(Math.max(0, at - 160), at + 80)}…`;
      });
    expect(leaks).toEqual([]);
  }, 60_000); // a guard against a hang under load; the wait above bounds the test itself
});
