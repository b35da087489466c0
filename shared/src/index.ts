/**
 * Everything shared, for the coordinator, the CLI, the demo and tests. The relay imports only the
 * subpaths it needs (`@quiesce/shared/protocol`, `/imds`, `/util`; Biome enforces it), so the
 * coordinator's decision core never ships in the relay's bundle.
 */
export * from "./core";
export * from "./imds";
export * from "./protocol";
export * from "./result";
export * from "./status";
