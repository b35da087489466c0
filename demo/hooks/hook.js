// The demo's drain / recover hook: a real process that takes a few seconds, as a real drain does
// (take the VM out of the load balancer, finish in-flight requests).
// Usage: node hook.js SECONDS [HOLD_DIR]
// With HOLD_DIR, the hook then waits as long as HOLD_DIR/hold.<hook>.<EventId> exists: the demo
// holds an event's drains until an operator's hold on it is in place (demo/src/drainHolds.ts).
const { existsSync } = require("node:fs");
const { join } = require("node:path");

const seconds = Number(process.argv[2] ?? "3");
const holdDir = process.argv[3];
const what = process.env.QUIESCE_HOOK ?? "hook";
const eventId = process.env.QUIESCE_EVENT_ID ?? "";
process.stderr.write(`${what} ${process.env.QUIESCE_VM_NAME} for ${eventId}\n`);

// Only names made of what an EventId and a hook name are: no path from the environment.
const holdFile =
  holdDir && /^[A-Za-z0-9-]+$/.test(eventId) && /^[a-z]+$/.test(what)
    ? join(holdDir, `hold.${what}.${eventId}`)
    : null;
let said = false;
const finish = () => {
  if (!holdFile || !existsSync(holdFile)) process.exit(0);
  if (!said)
    process.stderr.write(`${what} held until the operator's hold on ${eventId} is in place\n`);
  said = true;
  setTimeout(finish, 50);
};
setTimeout(finish, seconds * 1000);
