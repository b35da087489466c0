import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export const CHROMIUM = "/usr/bin/chromium";

/**
 * Debian's Chromium for the browser tests (no browser download): installed with apt-get when
 * missing and running as root. Returns why not when it cannot be had (no root, no network), so
 * the browser tests skip with that reason printed instead of failing on a machine without it.
 */
export function ensureChromium(): { ok: true; path: string } | { ok: false; reason: string } {
  if (existsSync(CHROMIUM)) return { ok: true, path: CHROMIUM };
  if (process.platform !== "linux" || !existsSync("/usr/bin/apt-get"))
    return { ok: false, reason: "no /usr/bin/chromium and no apt-get to install it" };
  if (process.getuid?.() !== 0)
    return { ok: false, reason: "no /usr/bin/chromium; run `apt-get install -y chromium` as root" };
  const apt = (args: string[]) =>
    spawnSync("apt-get", args, {
      stdio: "ignore",
      timeout: 600_000,
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  apt(["update"]);
  const install = apt(["install", "-y", "--no-install-recommends", "chromium"]);
  if (existsSync(CHROMIUM)) return { ok: true, path: CHROMIUM };
  return {
    ok: false,
    reason: `apt-get install chromium failed (exit ${install.status ?? install.signal}); no network?`,
  };
}

/** Builds the status page into functions/dist/page, where the coordinator serves it from (~0.3 s). */
export async function buildStatusPage(): Promise<string> {
  const root = resolve(__dirname, "..", "..", "..");
  const { buildPage } = (await import(join(root, "functions", "scripts", "build-page.mjs"))) as {
    buildPage(outDir: string): Promise<string>;
  };
  return buildPage(join(root, "functions", "dist", "page"));
}
