import type { HttpMethod } from "@azure/functions";
import { MAX_DELIVERY_BYTES } from "@quiesce/protocol/published";
import type { Handlers } from "./handlers";

/** The HTTP routes, shared by the Functions registration (app.ts) and the local host. */
export interface Route {
  name: string;
  methods: HttpMethod[];
  /** Functions route template, relative to the "api" prefix. */
  route: string;
  handler: Exclude<keyof Handlers, "sweep" | "eventGridTrigger">;
  /** Its own body limit, for a caller other than relays; QUIESCE_MAX_BODY_BYTES when absent. */
  maxBodyBytes?: number;
}

export const ROUTE_PREFIX = "api";

export const ROUTES: readonly Route[] = [
  { name: "relayReport", methods: ["POST"], route: "relay/report", handler: "report" },
  { name: "status", methods: ["GET"], route: "status", handler: "status" },
  { name: "cluster", methods: ["GET"], route: "clusters/{cluster}", handler: "cluster" },
  { name: "event", methods: ["GET"], route: "events/{eventId}", handler: "event" },
  { name: "alerts", methods: ["GET"], route: "alerts", handler: "alerts" },
  { name: "eventHold", methods: ["POST"], route: "events/{eventId}/hold", handler: "hold" },
  {
    name: "eventRelease",
    methods: ["POST"],
    route: "events/{eventId}/release",
    handler: "release",
  },
  {
    name: "eventForceApprove",
    methods: ["POST"],
    route: "events/{eventId}/force-approve",
    handler: "forceApprove",
  },
  {
    name: "eventForceGate",
    methods: ["POST"],
    route: "events/{eventId}/force-gate",
    handler: "forceGate",
  },
  { name: "me", methods: ["GET"], route: "me", handler: "me" },
  // Event Grid's webhook (events published off the VM); in Azure the maintenanceEvents trigger too.
  // OPTIONS: CloudEvents' validation handshake. Bodies as large as Event Grid's batches.
  {
    name: "maintenanceEventGrid",
    methods: ["POST", "OPTIONS"],
    route: "maintenance/eventgrid",
    handler: "eventGrid",
    maxBodyBytes: MAX_DELIVERY_BYTES,
  },
  // The status page: index at /api/ui, its files (and config.json) beside it.
  { name: "page", methods: ["GET"], route: "ui", handler: "page" },
  { name: "pageAsset", methods: ["GET"], route: "ui/{asset}", handler: "page" },
];
