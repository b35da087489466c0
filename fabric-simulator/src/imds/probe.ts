import { parseJsonWith } from "@quiesce/protocol";
import {
  InstanceMetadata,
  SCHEDULED_EVENTS_API_VERSION,
  ScheduledEventsDocument,
} from "@quiesce/protocol/imds";
import type { z } from "zod";

/**
 * Minimal IMDS calls against a simulated VM's base URL, parsed with the relay's own schemas: for
 * tests, and for anyone checking by hand that the simulator serves what the relay expects.
 */

export interface ImdsAnswer<T> {
  readonly status: number;
  readonly etag: string | null;
  readonly body: T | undefined;
  readonly text: string;
}

/** A 200's body through the relay's schema; one that does not parse throws (the test fails). */
function parsed<S extends z.ZodType>(schema: S, text: string): z.output<S> {
  const r = parseJsonWith(schema, text);
  if (!r.ok) throw new Error(`IMDS answer does not parse: ${r.error}`);
  return r.value;
}

async function call(
  url: string,
  init: RequestInit,
): Promise<{ status: number; etag: string | null; text: string }> {
  const res = await fetch(url, init);
  return { status: res.status, etag: res.headers.get("etag"), text: await res.text() };
}

export async function getScheduledEvents(
  imdsUrl: string,
  opts: { apiVersion?: string | null; metadataHeader?: boolean; ifNoneMatch?: string } = {},
): Promise<ImdsAnswer<ScheduledEventsDocument>> {
  const v = opts.apiVersion === undefined ? SCHEDULED_EVENTS_API_VERSION : opts.apiVersion;
  const query = v === null ? "" : `?api-version=${encodeURIComponent(v)}`;
  const headers: Record<string, string> = {};
  if (opts.metadataHeader !== false) headers.Metadata = "true";
  if (opts.ifNoneMatch !== undefined) headers["If-None-Match"] = opts.ifNoneMatch;
  const r = await call(`${imdsUrl}/metadata/scheduledevents${query}`, { headers });
  const body = r.status === 200 ? parsed(ScheduledEventsDocument, r.text) : undefined;
  return { ...r, body };
}

export async function postStartRequests(
  imdsUrl: string,
  body: unknown,
  opts: { apiVersion?: string; metadataHeader?: boolean; rawBody?: string } = {},
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.metadataHeader !== false) headers.Metadata = "true";
  const v = opts.apiVersion ?? SCHEDULED_EVENTS_API_VERSION;
  const r = await call(`${imdsUrl}/metadata/scheduledevents?api-version=${encodeURIComponent(v)}`, {
    method: "POST",
    headers,
    body: opts.rawBody ?? JSON.stringify(body),
  });
  return { status: r.status, text: r.text };
}

export async function approve(imdsUrl: string, ...eventIds: string[]): Promise<number> {
  const r = await postStartRequests(imdsUrl, {
    StartRequests: eventIds.map((EventId) => ({ EventId })),
  });
  return r.status;
}

export async function getInstanceMetadata(
  imdsUrl: string,
  apiVersion = "2021-02-01",
): Promise<ImdsAnswer<InstanceMetadata>> {
  const r = await call(`${imdsUrl}/metadata/instance?api-version=${apiVersion}`, {
    headers: { Metadata: "true" },
  });
  const body = r.status === 200 ? parsed(InstanceMetadata, r.text) : undefined;
  return { ...r, body };
}
