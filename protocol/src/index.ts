/**
 * What every part of Quiesce shares, and nothing more: parse results, null-prototype records keyed
 * by outside text, the names Azure and operators give things, yes/no settings, command-line
 * arguments, time, the redaction of secrets from what operators read, and the one logger that
 * applies it. The schemas live in subpaths by audience: `/imds` (Azure's documents), `/relay` (the
 * relay/coordinator protocol), `/status` (the status API), `/policy` (the operator's policy),
 * `/published` (the events Azure publishes off the VM: Event Grid deliveries, Resource Graph
 * pages). The relay imports only the root, `/imds` and `/relay`.
 */
export * from "./args";
export * from "./dict";
export * from "./env";
export * from "./log";
export * from "./names";
export * from "./redact";
export * from "./result";
export * from "./settings";
export * from "./timing";
export * from "./url";
