// bench (l), one fresh process (bench/coldStart.ts spawns it): require the packaged app.js as
// the Functions Node worker does, then optionally answer one relay report through the handler
// it registered. argv: app.js, "load" | "report", the path of @azure/functions (its
// test-friendly HttpRequest and InvocationContext, loaded before the clock starts, as the
// worker's own code is), and the report's JSON body. The stand-in for the worker's
// @azure/functions-core (on NODE_PATH) puts each registered handler in globalThis.registered.
const { performance } = require("node:perf_hooks");

const [main, mode, functionsPath, body] = process.argv.slice(2);
const mb = (bytes) => Math.round(bytes / 1e5) / 10;
const functions = mode === "report" ? require(functionsPath) : undefined;
globalThis.registered = {};

const started = performance.now();
require(main);
const loadMs = performance.now() - started;
const rssAfterLoadMB = mb(process.memoryUsage().rss);
const done = (out) => {
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0);
};
if (mode !== "report") done({ loadMs, rssAfterLoadMB });

const handler = globalThis.registered.relayReport;
const request = new functions.HttpRequest({
  method: "POST",
  url: "http://localhost/api/relay/report",
  headers: {
    authorization: `Bearer ${process.env.QUIESCE_RELAY_KEY}`,
    "content-type": "application/json",
  },
  body: { string: body },
});
handler(request, new functions.InvocationContext({ logHandler: () => undefined })).then(
  (res) =>
    done({
      loadMs,
      rssAfterLoadMB,
      status: res.status ?? 200,
      // From the start of require(app.js), and from the process's own start (Node's boot too).
      firstReportMs: performance.now() - started,
      processStartToReportMs: performance.now(),
      rssAfterReportMB: mb(process.memoryUsage().rss),
    }),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
