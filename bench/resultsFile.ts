import { existsSync, readFileSync } from "node:fs";
import { parseJsonWith } from "@quiesce/protocol";
import { z } from "zod";
import type { BenchResults } from "./benchResults";
import { FigureRecord } from "./figures";

/**
 * The results files an earlier run wrote (latest.json, relay-idle.json, status-scale.json),
 * parsed: the top level field by field, each figure's section as the object that run wrote.
 */

const section = <T>() =>
  z.custom<T>((v) => typeof v === "object" && v !== null && !Array.isArray(v), "an object");

export const LatestResults = z.object({
  date: z.string(),
  machine: z.object({ cpu: z.string(), cores: z.number(), node: z.string(), platform: z.string() }),
  durationSeconds: z.number(),
  figures: z.array(FigureRecord).optional(),
  events: section<NonNullable<BenchResults["events"]>>().optional(),
  throughput: section<NonNullable<BenchResults["throughput"]>>().optional(),
  convergence: section<NonNullable<BenchResults["convergence"]>>().optional(),
  cost: section<NonNullable<BenchResults["cost"]>>().optional(),
  partitions: section<NonNullable<BenchResults["partitions"]>>().optional(),
  scale: section<NonNullable<BenchResults["scale"]>>().optional(),
  controlPlane: section<NonNullable<BenchResults["controlPlane"]>>().optional(),
  attestation: section<NonNullable<BenchResults["attestation"]>>().optional(),
  agentless: section<NonNullable<BenchResults["agentless"]>>().optional(),
  delivery: section<NonNullable<BenchResults["delivery"]>>().optional(),
  coldStart: section<NonNullable<BenchResults["coldStart"]>>().optional(),
  relayIdle: z.unknown(),
  statusScale: section<NonNullable<BenchResults["statusScale"]>>().nullable(),
});

export const StatusScaleFile = section<NonNullable<BenchResults["statusScale"]>>();

/** The file through `schema`, or null when it does not exist; a file that does not parse throws. */
export function readResults<S extends z.ZodType>(file: string, schema: S): z.output<S> | null {
  if (!existsSync(file)) return null;
  const r = parseJsonWith(schema, readFileSync(file, "utf8"));
  if (!r.ok) throw new Error(`${file}: ${r.error}`);
  return r.value;
}
