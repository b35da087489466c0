import { parseArgs } from "node:util";

export const USAGE = `Usage: node fabric-simulator/dist/cli/main.js [options]

Simulates Azure IMDS Scheduled Events for a cluster of VMs on one HTTP server.

  --port N                    listen port (default 8080; 0 = any free port)
  --host ADDR                 listen address (default 127.0.0.1)
  --time-scale X              simulated seconds per real second (default 60)
  --topology FILE             topology JSON (default: 2 availability sets of 4 VMs, 1 placement group of 6)
  --vms N                     instead of a topology file: N generated VMs in groups of --group-size (default 10)
  --group-size N
  --require-all-approvals     events start only once every VM in Resources approved (or at NotBefore)
  --min-started-seconds N     an event stays Started at least N simulated seconds (default 10)
  --event-grid URL            deliver the events of groups whose scheduledEventsPolicy opted in to
                              this webhook, as an Event Grid subscription would (handshake first)
  -h, --help
`;

export interface CliArgs {
  readonly port: number;
  readonly host: string;
  readonly timeScale: number;
  readonly topologyFile?: string;
  readonly vms?: number;
  readonly groupSize: number;
  readonly requireAllApprovals: boolean;
  readonly minStartedSeconds: number;
  readonly eventGridUrl?: string;
  readonly help: boolean;
}

function number(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n < min)
    throw new Error(`--${name} must be a number >= ${min}, got "${text}"`);
  return n;
}

export function parseCliArgs(argv: string[]): CliArgs {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "time-scale": { type: "string" },
      topology: { type: "string" },
      vms: { type: "string" },
      "group-size": { type: "string" },
      "require-all-approvals": { type: "boolean" },
      "min-started-seconds": { type: "string" },
      "event-grid": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const timeScale = number("time-scale", values["time-scale"], 60, 0);
  if (timeScale <= 0) throw new Error("--time-scale must be greater than 0");
  if (values.topology !== undefined && values.vms !== undefined) {
    throw new Error("give either --topology or --vms, not both");
  }
  const vms = values.vms === undefined ? undefined : number("vms", values.vms, 0, 1);
  const port = number("port", values.port, 8080, 0);
  if (!Number.isInteger(port) || port > 65_535)
    throw new Error("--port must be an integer 0-65535");
  return {
    port,
    host: values.host ?? "127.0.0.1",
    timeScale,
    ...(values.topology !== undefined ? { topologyFile: values.topology } : {}),
    ...(vms !== undefined ? { vms: Math.floor(vms) } : {}),
    groupSize: Math.floor(number("group-size", values["group-size"], 10, 1)),
    requireAllApprovals: values["require-all-approvals"] ?? false,
    minStartedSeconds: number("min-started-seconds", values["min-started-seconds"], 10, 0),
    ...(values["event-grid"] !== undefined ? { eventGridUrl: values["event-grid"] } : {}),
    help: values.help ?? false,
  };
}
