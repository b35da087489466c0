import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildStatusPage, ensureChromium } from "@quiesce/testkit/browser";
import { type E2eCluster, startE2eCluster, startRequestsFor } from "@quiesce/testkit/cluster";
import { waitFor } from "@quiesce/testkit/wait";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The status page in Debian's Chromium, against the real local coordinator, Azurite, the fabric
 * simulator and real relay loops. Screenshots go to a temporary folder, or to docs/images with
 * QUIESCE_UPDATE_SCREENSHOTS=1.
 */

const browserAvailable = ensureChromium();
if (!browserAvailable.ok)
  console.warn(`status page browser tests skipped: ${browserAvailable.reason}`);

const topology = {
  groups: [
    { kind: "availabilitySet" as const, name: "avset-web", vms: ["web-0", "web-1", "web-2"] },
    {
      kind: "scaleSetPlacementGroup" as const,
      name: "vmss-api-pg0",
      scaleSetName: "vmss-api",
      zone: "2",
      vms: 2,
    },
  ],
};

const shots = process.env.QUIESCE_UPDATE_SCREENSHOTS
  ? resolve(__dirname, "..", "..", "docs", "images")
  : mkdtempSync(join(tmpdir(), "quiesce-page-"));
const axeSource = readFileSync(createRequire(__filename).resolve("axe-core/axe.min.js"), "utf8");

describe.skipIf(!browserAvailable.ok)("status page in a real browser", () => {
  let e: E2eCluster;
  let browser: Browser;
  let operator: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  const watch = (p: Page) => {
    p.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    p.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  };
  const signIn = async (p: Page, key: string) => {
    await p.goto(`${e.c.coordinatorUrl}/`);
    await p.getByLabel("Key").fill(key);
    await p.getByRole("button", { name: "Sign in" }).click();
    await p.getByRole("heading", { name: "Clusters" }).waitFor();
  };
  const card = (id: string) => page.locator(`article.event[data-event-id="${id}"]`);
  const shot = (name: string) =>
    page.screenshot({ path: join(shots, `status-page-${name}.png`), fullPage: false });

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    await buildStatusPage();
    e = await startE2eCluster(topology, { maxEventsInFlight: 2 });
    browser = await chromium.launch({
      executablePath: browserAvailable.ok ? browserAvailable.path : "",
      // Chromium refuses its sandbox as root (CI containers).
      args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
    });
    operator = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    page = await operator.newPage();
    watch(page);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await e?.stop();
    if (!process.env.QUIESCE_UPDATE_SCREENSHOTS) rmSync(shots, { recursive: true, force: true });
  });

  it("asks for the key, then lists the cluster by group with every relay live", async () => {
    await page.goto(`${e.c.coordinatorUrl}/`);
    await page.getByLabel("Key").waitFor();
    await shot("sign-in");
    await signIn(page, e.c.operatorKey);
    const who = page.locator("#who");
    await who.getByRole("button", { name: "Sign out" }).waitFor();
    expect(await who.locator("span").textContent()).toBe("Signed in as operator-key (operator)");
    const cluster = page.locator('section.cluster[data-cluster="e2e"]');
    await cluster.getByText("5 of 5 relays live").waitFor();
    expect(await cluster.locator("li.vm.live").count()).toBe(5);
    expect(await cluster.locator(".group h4").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("scale set vmss-api")]),
    );
  });

  it("shows an event draining with its blocking VM, then approved, then completed in the history", async () => {
    // web-1 drains until the page has shown it blocking, however slow the machine.
    e.markers.hold("drain", "web-1");
    const ev = e.c.fabric.schedule({
      eventType: "Freeze",
      resources: ["web-0", "web-1"],
      noticeSeconds: 300,
      durationInSeconds: 5,
      startedSeconds: 4,
    });
    const c = card(ev.eventId);
    try {
      await c.locator('.blocker[data-vm="web-1"]').waitFor({ timeout: 15_000 });
      expect(await c.getAttribute("data-phase")).toMatch(/Observed|Draining/);
      expect(await c.locator(".marker").count()).toBe(1); // NotBefore on the bar
      await shot("overview");
    } finally {
      e.markers.release("drain", "web-1");
    }
    await page
      .locator(`article.event[data-event-id="${ev.eventId}"][data-phase="Started"]`)
      .waitFor({ timeout: 20_000 });
    expect(await c.locator(".blocker").count()).toBe(0);
    const row = page.locator(`table.history tr[data-event-id="${ev.eventId}"]`);
    await row.waitFor({ timeout: 30_000 });
    expect(await row.textContent()).toContain("Completed");
    expect(await row.textContent()).toContain("allDrained");
    await page.locator('section[aria-labelledby="h-history"]').scrollIntoViewIfNeeded();
    await shot("history");
    await row.getByRole("link").click();
    await page.locator(`.event-page[data-event-id="${ev.eventId}"]`).waitFor();
    expect(await page.locator(".history-list li").count()).toBeGreaterThan(3);
    await shot("event");
    await page.goto(`${e.c.coordinatorUrl}/api/ui#/`);
    await page.getByRole("heading", { name: "Clusters" }).waitFor();
  });

  it("holds a drained event from the page: it stays unapproved, says who held it, and goes once released", async () => {
    // vmss-api_1 drains until the operator's hold is in place, however slow the machine.
    e.markers.hold("drain", "vmss-api_1");
    const ev = e.c.fabric.schedule({
      eventType: "Reboot",
      resources: ["vmss-api_0", "vmss-api_1"],
      noticeSeconds: 300,
      startedSeconds: 1,
    });
    const c = card(ev.eventId);
    const dialog = page.getByRole("dialog");
    try {
      await c.getByRole("button", { name: "Hold" }).click({ timeout: 15_000 });
      await dialog.getByLabel("Reason").fill("change freeze for the release");
      await dialog.getByLabel("Expires after (minutes)").fill("30");
      await shot("hold-dialog");
      await dialog.getByRole("button", { name: "Confirm hold" }).click();
      await c.getByText("Held by operator-key").waitFor();
    } finally {
      e.markers.release("drain", "vmss-api_1");
    }
    // Both VMs drained and reported while held: the hold alone keeps the event unapproved.
    const held = await waitFor(
      "both VMs drained under the hold",
      async () => {
        const d = await e.c.status.event(ev.eventId, "e2e");
        return d.drained.length === 2 && d.waitingFor?.startsWith("operator hold") ? d : null;
      },
      20_000,
      200,
    );
    expect(held.approval.approvedAt).toBeNull();
    expect(startRequestsFor(e.c.fabric, ev.eventId)).toEqual([]);
    await c.getByText(/Waiting for: operator hold by operator-key/).waitFor();
    await c.locator(".vm-chip.drained").nth(1).waitFor(); // the page too shows both drained
    expect(await c.locator(".blocker").count()).toBe(0);
    await shot("held");
    await c.getByRole("button", { name: "Release" }).click();
    await dialog.getByLabel("Reason").fill("release is out");
    await dialog.getByRole("button", { name: "Confirm release" }).click();
    await page
      .locator(`table.history tr[data-event-id="${ev.eventId}"]`)
      .waitFor({ timeout: 30_000 });
  }, 60_000);

  it("shows a reader no operator buttons, and the API refuses the reader's forged hold with 403", async () => {
    const ev = e.c.fabric.schedule({
      eventType: "Freeze",
      resources: ["web-2"],
      noticeSeconds: 300,
      durationInSeconds: 5,
    });
    const reader = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    const rp = await reader.newPage();
    watch(rp);
    const before = problems.length;
    await signIn(rp, e.c.readerKey);
    await rp.getByText("Signed in as reader-key (reader)").waitFor();
    await rp.locator(`article.event[data-event-id="${ev.eventId}"]`).waitFor({ timeout: 15_000 });
    expect(await rp.locator("button.op").count()).toBe(0);
    const forged = await rp.evaluate(
      async ({ id, key }) =>
        (
          await fetch(`/api/events/${id}/hold?cluster=e2e`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ reason: "forged" }),
          })
        ).status,
      { id: ev.eventId, key: e.c.readerKey },
    );
    expect(forged).toBe(403);
    // The browser logs the forged call's 403 itself; that one is expected, nothing else is.
    expect(problems.splice(before)).toEqual([
      "console: Failed to load resource: the server responded with a status of 403 (Forbidden)",
    ]);
    expect((await e.c.status.event(ev.eventId, "e2e")).hold).toBeNull();
    await reader.close();
  });

  it("passes an axe accessibility scan on every view, with no console errors all along", async () => {
    const scan = async () => {
      await page.evaluate(axeSource);
      // A string, evaluated in the page: the test's TypeScript knows no DOM.
      return page.evaluate(`axe
        .run(document, { runOnly: ["wcag2a", "wcag2aa", "best-practice"] })
        .then((r) => r.violations.map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).join(", ")))`);
    };
    expect(await scan()).toEqual([]);
    const link = page.locator("article.event h3 a, table.history a").first();
    await link.click();
    await page.locator(".event-page").waitFor();
    expect(await scan()).toEqual([]);
    expect(problems).toEqual([]);
  });
});
