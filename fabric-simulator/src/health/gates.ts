import type { ServerResponse } from "node:http";
import { z } from "zod";
import type { FabricEngine } from "../engine/engine";
import { sendJson } from "../http/io";
import { type ControlResult, parseCommand } from "../model/controlResult";

/**
 * Health endpoints for the coordinator's HTTP gates: `GET /health/<name>` answers the status the
 * control API set (200 until then), and counts the probes so a test can tell it was asked. Reset
 * with the fabric, like everything a test sets up.
 */

export const SetHealth = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/, "a name: 1-80 letters, digits, '.', '_' or '-'"),
  /** What `GET /health/<name>` answers. */
  status: z.number().int().min(200).max(599),
});
export type SetHealthInput = z.input<typeof SetHealth>;

export interface HealthEndpoint {
  readonly name: string;
  readonly status: number;
  readonly probes: number;
}

export class HealthGates {
  private endpoints = new Map<string, HealthEndpoint>();
  private generation: number;

  constructor(private readonly fabric: FabricEngine) {
    this.generation = fabric.generation;
  }

  private current(): Map<string, HealthEndpoint> {
    if (this.generation !== this.fabric.generation) {
      this.endpoints = new Map();
      this.generation = this.fabric.generation;
    }
    return this.endpoints;
  }

  private get(name: string): HealthEndpoint {
    return this.current().get(name) ?? { name, status: 200, probes: 0 };
  }

  set(input: unknown): ControlResult<HealthEndpoint> {
    const p = parseCommand(SetHealth, input);
    if (!p.ok) return p;
    const next = { ...this.get(p.value.name), status: p.value.status };
    this.current().set(next.name, next);
    return { ok: true, value: next };
  }

  list(): HealthEndpoint[] {
    return [...this.current().values()];
  }

  /** `GET /health/<name>` on the main listener. */
  probe(name: string, res: ServerResponse): void {
    const next = { ...this.get(name), probes: this.get(name).probes + 1 };
    this.current().set(name, next);
    sendJson(res, next.status, {
      name,
      status: next.status >= 200 && next.status < 300 ? "Healthy" : "Unhealthy",
    });
  }
}
