/** The relay/coordinator protocol: what both sides must agree on, and nothing of the core. */
export * from "./attestation";
export * from "./redactReport";
export * from "./v1";
export * from "./version";
