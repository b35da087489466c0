// The demo's drain / recover hook: a real process that takes a few seconds, as a real drain does
// (take the VM out of the load balancer, finish in-flight requests). Usage: node hook.js SECONDS
const seconds = Number(process.argv[2] ?? "3");
const what = process.env.QUIESCE_HOOK ?? "hook";
process.stderr.write(
  `${what} ${process.env.QUIESCE_VM_NAME} for ${process.env.QUIESCE_EVENT_ID}\n`,
);
setTimeout(() => process.exit(0), seconds * 1000);
