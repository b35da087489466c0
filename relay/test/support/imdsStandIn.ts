import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isAdvisory, REBALANCE_API_VERSION } from "@quiesce/protocol/imds";
import { LoopbackServer } from "./loopbackServer";

/** One request as the IMDS stand-in saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

export interface StandInEvent {
  EventId: string;
  EventType: string;
  ResourceType?: string;
  Resources: string[];
  EventStatus: "Scheduled" | "Started";
  NotBefore: string;
  Description?: string;
  EventSource?: string;
  DurationInSeconds?: number;
}

/**
 * A tiny IMDS for tests: serves a document the test sets, with ETag/304 like a caching front,
 * instance metadata, StartRequests recording, 400 without `Metadata: true`, and scripted faults.
 */
export class ImdsStandIn extends LoopbackServer {
  readonly requests: SeenRequest[] = [];
  readonly startRequests: string[][] = [];
  private incarnation = 1;
  private events: StandInEvent[] = [];
  /** Served instead of the document while set (malformed bodies). */
  rawBody: string | undefined;
  /** Status codes served, one per request, before normal answers resume. */
  faults: number[] = [];
  /** Served with every answer when true. */
  sendEtag = true;
  /** Status IMDS answers StartRequests with. */
  startRequestsStatus = 200;
  vmName: string;

  constructor(vmName = "vm-0") {
    super();
    this.vmName = vmName;
  }

  setEvents(events: StandInEvent[]): void {
    this.events = events;
    this.incarnation++;
  }

  /**
   * The document as served at `apiVersion`: like Azure (and the fabric simulator), only
   * REBALANCE_API_VERSION shows Spot rebalance recommendations. Every event when absent.
   */
  document(apiVersion: string = REBALANCE_API_VERSION) {
    const events =
      apiVersion >= REBALANCE_API_VERSION ? this.events : this.events.filter((e) => !isAdvisory(e));
    return { DocumentIncarnation: this.incarnation, Events: events };
  }

  eventRequests(): SeenRequest[] {
    return this.requests.filter(
      (r) => r.path === "/metadata/scheduledevents" && r.method === "GET",
    );
  }

  protected handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://imds");
      const seen: SeenRequest = {
        method: req.method ?? "",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: performance.now(),
      };
      this.requests.push(seen);
      const send = (status: number, body: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(body);
      };
      if (req.headers.metadata !== "true")
        return send(
          400,
          JSON.stringify({ error: "Bad request. Required metadata header not specified" }),
        );
      if (!url.searchParams.get("api-version"))
        return send(400, JSON.stringify({ error: "Bad request. api-version was not specified" }));
      const fault = this.faults.shift();
      if (fault !== undefined) return send(fault, JSON.stringify({ error: `scripted ${fault}` }));
      if (url.pathname === "/metadata/instance") {
        return send(
          200,
          JSON.stringify({
            compute: {
              name: this.vmName,
              vmId: `id-${this.vmName}`,
              resourceId: `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/${this.vmName}`,
              subscriptionId: "s",
              resourceGroupName: "rg",
              platformFaultDomain: "0",
              platformUpdateDomain: "0",
              zone: "",
            },
          }),
        );
      }
      if (url.pathname === "/metadata/attested/document") {
        // Not a real signature: relay tests check what the relay sends, the coordinator verifies.
        const nonce = url.searchParams.get("nonce") ?? "";
        const signature = Buffer.from(`signed:${this.vmName}:${nonce}`).toString("base64");
        return send(200, JSON.stringify({ encoding: "pkcs7", signature }));
      }
      if (url.pathname !== "/metadata/scheduledevents") return send(404, "{}");
      if (req.method === "POST") {
        const body = JSON.parse(seen.body) as { StartRequests: { EventId: string }[] };
        this.startRequests.push(body.StartRequests.map((s) => s.EventId));
        return send(this.startRequestsStatus, "");
      }
      const body =
        this.rawBody ?? JSON.stringify(this.document(url.searchParams.get("api-version") ?? ""));
      if (!this.sendEtag) return send(200, body);
      const etag = `"${createHash("sha1").update(body).digest("hex").slice(0, 16)}"`;
      if (req.headers["if-none-match"] === etag) return send(304, "", { etag });
      return send(200, body, { etag });
    });
  }
}
