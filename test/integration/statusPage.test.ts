import { type LocalCoordinator, startLocalCoordinator } from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import { buildStatusPage, ensureChromium } from "@quiesce/testkit/browser";
import { freezeEvent, makeReport, uniquePrefix } from "@quiesce/testkit/harness";
import {
  HOSTILE_MARKUP,
  HOSTILE_TEXT,
  HOSTILE_VM,
  hostileEventId,
} from "@quiesce/testkit/notifications";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The status page's server side over real sockets: static files, sign-in support, conditional
 * GETs; and, in Debian's Chromium, outside text shown as text.
 */

const azurite = useAzurite();
let local: LocalCoordinator;
beforeAll(async () => {
  await buildStatusPage();
  local = await startLocalCoordinator({
    connectionString: azurite().connectionString,
    settings: { QUIESCE_TABLE_PREFIX: uniquePrefix() },
    sweepIntervalMs: 0,
  });
});
afterAll(async () => {
  await local?.stop();
});

const get = (path: string, key?: string, headers: Record<string, string> = {}) =>
  fetch(`${local.url}${path}`, {
    headers: { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) },
    redirect: "manual",
  });
const post = (path: string, key: string, body: unknown) =>
  fetch(`${local.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("the status page's files", () => {
  it("are served at /api/ui (the host root redirects there) with a same-origin CSP and no key in them", async () => {
    const root = await get("/");
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/api/ui");
    for (const [path, type] of [
      ["/api/ui", "text/html"],
      ["/api/ui/app.js", "text/javascript"],
      ["/api/ui/app.css", "text/css"],
    ] as const) {
      const r = await get(path);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toContain(type);
      expect(r.headers.get("content-security-policy")).toContain("default-src 'self'");
      const text = await r.text();
      for (const secret of [local.operatorKey, local.readerKey, local.relayKey])
        expect(text).not.toContain(secret);
    }
    const html = await (await get("/api/ui")).text();
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)/); // nothing fetched from elsewhere
  });

  it("answer a revalidation with 304, name the sign-in mode, and 404 an unknown file", async () => {
    const first = await get("/api/ui/app.js");
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"[\w-]{22}"$/); // strong: a hash of the file
    const again = await get("/api/ui/app.js", undefined, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await (await get("/api/ui/config.json")).json()).toEqual({ auth: "sharedKey" });
    const missing = await get("/api/ui/..%2Fapp.ts");
    expect(missing.status).toBe(404);
  });
});

describe("who the page signed in as", () => {
  it("GET /api/me tells the reader key from the operator key and refuses relays and strangers", async () => {
    expect(await (await get("/api/me", local.readerKey)).json()).toEqual({
      principal: "reader-key",
      roles: ["reader"],
    });
    const op = (await (await get("/api/me", local.operatorKey)).json()) as { roles: string[] };
    expect(op.roles).toContain("operator");
    expect((await get("/api/me", local.relayKey)).status).toBe(403);
    expect((await get("/api/me", "not-a-key-at-all")).status).toBe(401);
    expect((await get("/api/me")).status).toBe(401);
  });

  it("a reader reads status but a hold with the reader key gets 403 and changes nothing", async () => {
    const ev = freezeEvent(["page-0"]);
    const report = await post(
      "/api/relay/report",
      local.relayKey,
      makeReport("page-0", { cluster: "page", incarnation: 1, events: [ev] }),
    );
    expect(report.status).toBe(200);
    const path = `/api/events/${ev.EventId}?cluster=page`;
    const before = await get(path, local.readerKey);
    expect(before.status).toBe(200);
    const forged = await post(`/api/events/${ev.EventId}/hold?cluster=page`, local.readerKey, {
      reason: "forged",
    });
    expect(forged.status).toBe(403);
    const after = (await (await get(path, local.readerKey)).json()) as { hold: unknown };
    expect(after.hold).toBeNull();
  });
});

describe("conditional GETs of the status API", () => {
  it("answer 304 while only the clock moved, and 200 with a new ETag once the state changed", async () => {
    const first = await get("/api/status", local.operatorKey);
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^W\/"/);
    const same = await get("/api/status", local.operatorKey, { "if-none-match": etag });
    expect(same.status).toBe(304);
    expect(await same.text()).toBe("");
    await post(
      "/api/relay/report",
      local.relayKey,
      makeReport("etag-0", { cluster: "etag", incarnation: 1 }),
    );
    const changed = await get("/api/status", local.operatorKey, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
  });
});

const browser = ensureChromium();
if (!browser.ok) console.warn(`status page browser test skipped: ${browser.reason}`);

describe.skipIf(!browser.ok)("text from relays, hooks and Azure on the page (Chromium)", () => {
  it("shows a hostile event id, VM name, description and hook output literally, with no element or link made from them", async () => {
    const id = hostileEventId("P");
    const ev = freezeEvent([HOSTILE_VM, "web-2"], { EventId: id, Description: HOSTILE_TEXT });
    const at = new Date().toISOString();
    const failed = { status: "failed" as const, attempt: 1, startedAt: at, detail: HOSTILE_TEXT };
    for (const r of [
      makeReport(HOSTILE_VM, { cluster: "hostile", events: [ev] }),
      {
        ...makeReport(HOSTILE_VM, { cluster: "hostile", events: [ev], seq: 2 }),
        hooks: [{ eventId: id, drain: failed }],
      },
    ])
      expect((await post("/api/relay/report", local.relayKey, r)).status).toBe(200);

    const b = await chromium.launch({
      executablePath: browser.ok ? browser.path : "",
      args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
    });
    try {
      const page = await b.newPage();
      await page.goto(`${local.url}/`);
      await page.getByLabel("Key").fill(local.operatorKey);
      await page.getByRole("button", { name: "Sign in" }).click();
      const card = page
        .locator("article.event")
        .filter({ has: page.locator('a[href^="#/events/hostile/"]') });
      await card.getByText("drain hook failed", { exact: false }).first().waitFor();
      // What the page made of it, read in the page: its text, and the elements and links it built.
      const seen = () =>
        page.evaluate(`({
          text: document.querySelector("main").textContent,
          tags: [...new Set([...document.querySelectorAll("main *")].map((e) => e.localName))],
          links: [...document.querySelectorAll("a")].map((a) => a.getAttribute("href")),
        })`) as Promise<{ text: string; tags: string[]; links: string[] }>;
      const overview = await seen();
      expect(overview.text).toContain(`Freeze ${id.slice(0, 8)}`); // the card's short id
      expect(overview.text).toContain(HOSTILE_VM);
      for (const piece of HOSTILE_MARKUP) expect(overview.text).toContain(piece); // hook output
      expect(overview.tags).not.toEqual(expect.arrayContaining(["b"]));
      expect(overview.links.every((h) => h?.startsWith("#/"))).toBe(true);

      await card.getByRole("link").first().click();
      await page.locator(".event-page").waitFor();
      expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#/events/hostile/${id}`);
      expect(await page.locator(".event-page p.meta").first().textContent()).toBe(HOSTILE_TEXT);
      const detail = await seen();
      expect(detail.text).toContain(id);
      expect(detail.tags).not.toEqual(expect.arrayContaining(["b"]));
      expect(detail.links.every((h) => h?.startsWith("#/"))).toBe(true);
    } finally {
      await b.close();
    }
  });
});
