import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { delay, parseJsonWith, parseWith } from "@quiesce/protocol";
import { StartRequestsBody } from "@quiesce/protocol/imds";
import { z } from "zod";
import type { AttestedDocuments } from "../attested/service";
import type { FabricEngine } from "../engine/engine";
import { BodyTooLarge, readBody, sendJson } from "../http/io";
import { SCHEDULED_EVENTS_API_VERSIONS, type ScheduledEventsApiVersion } from "../model/document";
import type { ImdsRoute } from "../model/fabric";
import type { VmRecord } from "../topology/topology";
import {
  ATTESTED_API_VERSIONS,
  INSTANCE_API_VERSIONS,
  newestVersions,
  scheduledEventsApiVersion,
} from "./apiVersions";

/**
 * One VM's IMDS, as Azure documents it: `Metadata: true` and a known `api-version` on every
 * request (400 otherwise), the group's Scheduled Events document with an ETag (304 on a matching
 * If-None-Match), StartRequests (200 for any well-formed body), and instance metadata.
 */

const FAULT_TEXT: Record<number, string> = {
  410: "Gone. Retry after the service is ready.",
  429: "Too many requests.",
  500: "Internal server error.",
  503: "Service unavailable.",
};

interface CachedDocument {
  readonly incarnation: number;
  readonly body: string;
  readonly etag: string;
}

export class ImdsHandler {
  private readonly cache = new Map<string, CachedDocument>();
  private cacheGeneration = -1;

  constructor(
    private readonly engine: FabricEngine,
    private readonly attested: AttestedDocuments,
  ) {}

  /** `rest` is the path after `/vm/<name>`, e.g. `/metadata/scheduledevents`. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    vmName: string,
    rest: string,
    query: URLSearchParams,
  ): Promise<void> {
    const vm = this.engine.state().vms[vmName];
    if (!vm) return sendJson(res, 404, { error: `Not found. No simulated VM named ${vmName}.` });
    if (vm.deleted)
      return sendJson(res, 404, {
        error: `Not found. VM ${vmName} was deleted (evicted or terminated).`,
      });

    const path = rest.toLowerCase().replace(/\/+$/, "");
    const route: ImdsRoute | undefined =
      path === "/metadata/scheduledevents"
        ? req.method === "POST"
          ? "startrequests"
          : "scheduledevents"
        : path === "/metadata/instance"
          ? "instance"
          : path === "/metadata/attested/document"
            ? "attested"
            : undefined;
    if (!route) return sendJson(res, 404, { error: "Not found." });

    // IMDS refuses anything that looks proxied, and anything without the header a browser or an
    // SSRF cannot add: 400 either way.
    if (req.headers["x-forwarded-for"] !== undefined) {
      return sendJson(res, 400, {
        error: "Bad request. Requests through a proxy are not allowed.",
      });
    }
    if (String(req.headers.metadata ?? "").toLowerCase() !== "true") {
      return sendJson(res, 400, { error: "Bad request. Required metadata header not specified" });
    }

    const known =
      route === "instance"
        ? INSTANCE_API_VERSIONS
        : route === "attested"
          ? ATTESTED_API_VERSIONS
          : (SCHEDULED_EVENTS_API_VERSIONS as readonly string[]);
    const apiVersion = query.get("api-version");
    if (apiVersion === null || apiVersion === "") {
      return sendJson(res, 400, {
        error:
          "Bad request. api-version was not specified in the request. For more information refer to aka.ms/azureimds",
        "newest-versions": newestVersions(known),
      });
    }
    if (!known.includes(apiVersion)) {
      return sendJson(res, 400, {
        error:
          "Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds",
        "newest-versions": newestVersions(known),
      });
    }

    const allowed = route === "instance" || route === "attested" ? ["GET"] : ["GET", "POST"];
    if (!allowed.includes(req.method ?? "")) {
      return sendJson(res, 405, { error: "Method not allowed." }, { allow: allowed.join(", ") });
    }

    const fault = this.engine.takeFault(vm.name, route);
    if (fault.latencyMs !== undefined) await delay(fault.latencyMs);
    if (fault.status !== undefined) {
      req.resume();
      return sendJson(res, fault.status, { error: FAULT_TEXT[fault.status] ?? "Error." });
    }

    if (route === "instance") return sendJson(res, 200, instanceMetadata(vm));
    if (route === "attested") return this.attestedDocument(res, vm, query.get("nonce"));
    if (route === "startrequests") return this.startRequests(req, res, vm);
    return this.scheduledEvents(
      req,
      res,
      vm,
      scheduledEventsApiVersion(apiVersion) as ScheduledEventsApiVersion,
    );
  }

  /**
   * `/metadata/attested/document`: `{"encoding":"pkcs7","signature":…}`. The nonce is what the
   * swagger allows ("up to 32 random alphanumeric characters"); what real IMDS answers to a longer
   * or odd one was not verified, so this refuses it with a 400 like its other bad requests.
   */
  private async attestedDocument(
    res: ServerResponse,
    vm: VmRecord,
    nonce: string | null,
  ): Promise<void> {
    if (nonce !== null && !/^[A-Za-z0-9]{1,32}$/.test(nonce))
      return sendJson(res, 400, { error: "Bad request. Invalid nonce." });
    return sendJson(res, 200, await this.attested.document(vm, nonce ?? undefined));
  }

  private scheduledEvents(
    req: IncomingMessage,
    res: ServerResponse,
    vm: VmRecord,
    v: ScheduledEventsApiVersion,
  ): void {
    const doc = this.cachedDocument(vm.group, v);
    const ifNoneMatch = req.headers["if-none-match"];
    if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, doc.etag)) {
      res.writeHead(304, { etag: doc.etag });
      res.end();
      return;
    }
    res.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(doc.body),
      etag: doc.etag,
    });
    res.end(doc.body);
  }

  private async startRequests(
    req: IncomingMessage,
    res: ServerResponse,
    vm: VmRecord,
  ): Promise<void> {
    let text: string;
    try {
      text = await readBody(req, 64 * 1024);
    } catch (e) {
      if (e instanceof BodyTooLarge)
        return sendJson(res, 400, { error: "Bad request. Body too large." });
      throw e;
    }
    // Two steps, as IMDS words the two refusals differently.
    const json = parseJsonWith(z.unknown(), text);
    if (!json.ok) return sendJson(res, 400, { error: "Bad request. Body is not valid JSON." });
    const body = parseWith(StartRequestsBody, json.value);
    if (!body.ok) {
      return sendJson(res, 400, {
        error: 'Bad request. Expected {"StartRequests": [{"EventId": "<id>"}, ...]}.',
      });
    }
    const r = this.engine.startRequests(vm.name, body.value);
    if (!r.ok) return sendJson(res, r.error.status, { error: r.error.message });
    res.writeHead(200, { "content-length": 0 });
    res.end();
  }

  /** Every VM of a group polls the same document: render and hash it once per incarnation. */
  private cachedDocument(group: string, v: ScheduledEventsApiVersion): CachedDocument {
    if (this.cacheGeneration !== this.engine.generation) {
      this.cache.clear();
      this.cacheGeneration = this.engine.generation;
    }
    const incarnation = this.engine.state().groups[group]?.incarnation ?? 0;
    const key = `${group}\u0000${v}`;
    const hit = this.cache.get(key);
    if (hit && hit.incarnation === incarnation) return hit;
    const body = JSON.stringify(this.engine.document(group, v));
    const etag = `"${createHash("sha1").update(body).digest("base64url").slice(0, 22)}"`;
    const doc = { incarnation, body, etag };
    this.cache.set(key, doc);
    return doc;
  }
}

function matchesEtag(header: string | string[], etag: string): boolean {
  const values = (Array.isArray(header) ? header.join(",") : header)
    .split(",")
    .map((t) => t.trim());
  return values.some((t) => t === "*" || t === etag || t.replace(/^W\//, "") === etag);
}

/** `/metadata/instance` as Azure serves it: absent values are empty strings, not missing keys. */
export function instanceMetadata(vm: VmRecord): unknown {
  return {
    compute: {
      azEnvironment: "AzurePublicCloud",
      location: vm.location,
      name: vm.name,
      osProfile: {
        adminUsername: "azureuser",
        computerName: vm.computerName,
        disablePasswordAuthentication: "true",
      },
      osType: "Linux",
      placementGroupId: vm.placementGroupId ?? "",
      platformFaultDomain: vm.platformFaultDomain,
      platformUpdateDomain: vm.platformUpdateDomain,
      provider: "Microsoft.Compute",
      resourceGroupName: vm.resourceGroupName,
      resourceId: vm.resourceId,
      subscriptionId: vm.subscriptionId,
      tags: "",
      vmId: vm.vmId,
      vmScaleSetName: vm.vmScaleSetName ?? "",
      vmSize: "Standard_D2s_v5",
      zone: vm.zone ?? "",
    },
    network: { interface: [] },
  };
}
