import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, inflateRawSync } from "node:zlib";
import { ROUTES } from "@quiesce/functions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "./bicep";

// The packaging scripts are plain ESM JavaScript (run by node without a build step).
type Entry = { name: string; data: Buffer; mode?: number };
type Archive = { zipBuffer(entries: Entry[]): Buffer; tarGzBuffer(entries: Entry[]): Buffer };
type FunctionsPackager = {
  packageFunctions(
    root: string,
    out: string,
  ): Promise<{ stage: string; zip: string; main: string }>;
};
const script = (name: string) => import(join(repoRoot, "scripts", "package", name));
const loadArchive = () => script("archive.mjs") as Promise<Archive>;
const loadFunctionsPackager = () => script("functions.mjs") as Promise<FunctionsPackager>;

/** Reads a ZIP through its central directory, as unzip and the Functions host do. */
function readZip(zip: Buffer): Map<string, { data: Buffer; mode: number }> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = new Map<string, { data: Buffer; mode: number }>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const mode = (zip.readUInt32LE(at + 38) >>> 16) & 0o777;
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString("utf8", at + 46, at + 46 + nameLength);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const body = zip.subarray(dataAt, dataAt + size);
    files.set(name, { data: method === 8 ? inflateRawSync(body) : Buffer.from(body), mode });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return files;
}

function readTarGz(tgz: Buffer): Map<string, { data: Buffer; mode: number }> {
  const tar = gunzipSync(tgz);
  const files = new Map<string, { data: Buffer; mode: number }>();
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const field = (from: number, len: number) =>
      tar.toString("utf8", at + from, at + from + len).replace(/\0.*$/s, "");
    const size = Number.parseInt(field(124, 12), 8);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : (tar[at + i] as number);
    expect(Number.parseInt(field(148, 8), 8)).toBe(sum);
    files.set(field(0, 100), {
      data: tar.subarray(at + 512, at + 512 + size),
      mode: Number.parseInt(field(100, 8), 8),
    });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

const sample: Entry[] = [
  { name: "host.json", data: Buffer.from(JSON.stringify({ version: "2.0" }).repeat(40)) },
  { name: "dist/app.js", data: Buffer.from("module.exports = 1;\n") },
  { name: "install.sh", data: Buffer.from("#!/bin/sh\necho hi\n"), mode: 0o755 },
  { name: "empty", data: Buffer.alloc(0) },
];

describe("archive writers", () => {
  it("write a ZIP whose entries read back byte for byte, with their modes", async () => {
    const archive = await loadArchive();
    const files = readZip(archive.zipBuffer(sample));
    expect([...files.keys()]).toEqual(sample.map((e) => e.name));
    for (const e of sample) {
      expect(files.get(e.name)?.data.equals(e.data), e.name).toBe(true);
      expect(files.get(e.name)?.mode).toBe(e.mode ?? 0o644);
    }
  });

  it("write a tar.gz whose entries read back byte for byte, executables kept executable", async () => {
    const archive = await loadArchive();
    const files = readTarGz(archive.tarGzBuffer(sample));
    expect([...files.keys()]).toEqual(sample.map((e) => e.name));
    for (const e of sample) expect(files.get(e.name)?.data.equals(e.data), e.name).toBe(true);
    expect(files.get("install.sh")?.mode).toBe(0o755);
  });

  it("are deterministic: the same input gives the same bytes", async () => {
    const archive = await loadArchive();
    expect(archive.zipBuffer(sample).equals(archive.zipBuffer(sample))).toBe(true);
    expect(archive.tarGzBuffer(sample).equals(archive.tarGzBuffer(sample))).toBe(true);
  });
});

describe("Functions deployment package", () => {
  const out = mkdtempSync(join(tmpdir(), "quiesce-package-"));
  let built: { zip: string; main: string };
  beforeAll(async () => {
    built = await (await loadFunctionsPackager()).packageFunctions(repoRoot, out);
  }, 60_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("holds host.json, a dependency-free package.json, the bundle its main names and the status page beside it", async () => {
    const files = readZip(readFileSync(built.zip));
    const manifest = JSON.parse(files.get("package.json")?.data.toString() ?? "{}");
    expect(manifest.dependencies).toEqual({});
    expect(files.has(manifest.main)).toBe(true);
    expect(files.has("host.json")).toBe(true);
    // functions/src/ui/assets.ts looks for the page in ./page next to the bundle.
    for (const f of ["index.html", "app.js", "app.css"])
      expect(files.has(`${manifest.main.replace(/[^/]+$/, "")}page/${f}`)).toBe(true);
    expect([...files.keys()].filter((f) => f.includes("node_modules"))).toEqual([]);
  }, 60_000);

  it("registers every route and the sweep timer with the Functions worker when loaded", async () => {
    const { main } = built;
    // Stand-in for the worker's @azure/functions-core (not an npm package): records what the
    // bundle registers, exactly as the Node worker receives it.
    const core = join(out, "worker", "node_modules", "@azure", "functions-core");
    mkdirSync(core, { recursive: true });
    writeFileSync(
      join(core, "index.js"),
      `const names = [];
       module.exports = {
         setProgrammingModel() {},
         registerHook() { return { dispose() {} }; },
         registerFunction(metadata) { names.push(metadata.name + ":" + Object.values(metadata.bindings).find((b) => b.direction === "in").type); return { dispose() {} }; },
       };
       process.on("exit", () => console.log(JSON.stringify(names)));`,
    );
    const stdout = execFileSync(process.execPath, ["-e", `require(${JSON.stringify(main)})`], {
      env: { ...process.env, NODE_PATH: join(out, "worker", "node_modules") },
      encoding: "utf8",
      timeout: 30_000,
    });
    const registered = JSON.parse(stdout.trim().split("\n").pop() ?? "[]") as string[];
    // The Event Grid trigger is the destination of infra's event subscription (control-plane
    // events, preview: infra/core/maintenance-delivery.bicep), by this name.
    expect(registered.sort()).toEqual(
      [
        ...ROUTES.map((r) => `${r.name}:httpTrigger`),
        "sweep:timerTrigger",
        "maintenanceEvents:eventGridTrigger",
      ].sort(),
    );
  }, 60_000);

  it("loads neither the Azure Monitor distro, @azure/identity, pkijs nor undici with app.js (each is its own file, required on first use), and of zod's locales English only", () => {
    const files = readZip(readFileSync(built.zip));
    const dist = built.main.replace(/[^/]+$/, "");
    const lazy = {
      "lazy-azureMonitorSdk.js": ["registerAzureMonitor"],
      "lazy-azure-identity.js": ["ManagedIdentityCredential", "DefaultAzureCredential"],
      "lazy-libs.js": ["pkijs", "asn1js"],
      "lazy-undici.js": ["request", "Agent"],
    };
    for (const f of Object.keys(lazy)) expect(files.has(`dist/${f}`), f).toBe(true);
    // Not in app.js at all (esbuild names each bundled module in a comment): not parsed at load.
    const app = readFileSync(built.main, "utf8");
    for (const pkg of ["@azure/monitor-opentelemetry", "@azure/msal-node", "pkijs", "undici"])
      expect(app.includes(`// node_modules/${pkg}/`), pkg).toBe(false);
    // Of zod's locales, English only (scripts/package/zodEnglishOnly.mjs).
    expect(app.match(/^\/\/ node_modules\/zod\/v4\/locales\/.*$/gm)).toEqual([
      "// node_modules/zod/v4/locales/en.js",
    ]);
    // Loading app.js (no Application Insights connection string, as locally) requires none of
    // them; each loads on its own and exports what the app takes from it.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_PATH: join(out, "worker", "node_modules"),
    };
    delete env.APPLICATIONINSIGHTS_CONNECTION_STRING;
    const loaded = execFileSync(
      process.execPath,
      [
        "-e",
        `require(${JSON.stringify(built.main)});
         const lazy = ${JSON.stringify(lazy)};
         const atLoad = Object.keys(require.cache).filter((f) => f.startsWith(${JSON.stringify(dist)}));
         const exported = Object.fromEntries(Object.entries(lazy).map(([f, names]) =>
           [f, names.filter((n) => n in require(${JSON.stringify(dist)} + f))]));
         process.stdout.write(JSON.stringify({ atLoad, exported }) + "\\n");`,
      ],
      { env, encoding: "utf8", timeout: 30_000 },
    );
    const { atLoad, exported } = JSON.parse(loaded.trim().split("\n")[0] ?? "{}");
    expect(atLoad).toEqual([built.main]);
    expect(exported).toEqual(lazy);
  }, 60_000);

  it("registers Azure Monitor's MeterProvider on the first invocation when a connection string is set, before the coordinator is made", () => {
    // A worker stand-in that keeps the handlers, to invoke one as the worker would.
    const core = join(out, "invoker", "node_modules", "@azure", "functions-core");
    mkdirSync(core, { recursive: true });
    writeFileSync(
      join(core, "index.js"),
      `module.exports = {
         setProgrammingModel() {},
         registerHook() { return { dispose() {} }; },
         registerFunction(metadata, handler) { (globalThis.registered ??= {})[metadata.name] = handler; return { dispose() {} }; },
       };`,
    );
    const functions = join(repoRoot, "node_modules", "@azure", "functions");
    const invokeOnce = (connectionString: string | undefined) => {
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        NODE_PATH: join(out, "invoker", "node_modules"),
        ...(connectionString ? { APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString } : {}),
      };
      // No QUIESCE_* settings: making the coordinator fails, after Azure Monitor is started.
      const stdout = execFileSync(
        process.execPath,
        [
          "-e",
          `const f = require(${JSON.stringify(functions)});
           require(${JSON.stringify(built.main)});
           const provider = () => globalThis[Symbol.for("opentelemetry.js.api.1")]?.metrics?.constructor?.name ?? null;
           const atLoad = provider();
           globalThis.registered.relayReport(
             new f.HttpRequest({ method: "POST", url: "http://localhost/api/relay/report", body: { string: "{}" } }),
             new f.InvocationContext({ logHandler() {} }),
           ).then(() => "answered", (e) => e.message).then((outcome) => {
             const lazy = Object.keys(require.cache).filter((k) => /lazy-/.test(k)).map((k) => k.replace(/^.*[\\\\/]/, ""));
             process.stdout.write(JSON.stringify({ atLoad, afterFirst: provider(), outcome, lazy }) + "\\n");
             process.exit(0); // the exporter's timers would keep the process up
           });`,
        ],
        { env, encoding: "utf8", timeout: 30_000 },
      );
      return JSON.parse(stdout.trim().split("\n").pop() ?? "{}");
    };
    const on = invokeOnce(
      "InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=http://127.0.0.1:9/",
    );
    expect(on).toMatchObject({ atLoad: null, afterFirst: "MeterProvider" });
    expect(on.outcome).toMatch(/QUIESCE_/);
    expect(on.lazy).toEqual(["lazy-azureMonitorSdk.js"]);
    const off = invokeOnce(undefined);
    expect(off).toMatchObject({ atLoad: null, afterFirst: null, lazy: [] });
    expect(off.outcome).toMatch(/QUIESCE_/);
  }, 60_000);
});
