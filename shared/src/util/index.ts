/** Small helpers both sides use: null-prototype records keyed by outside text, and Result. */
export * from "../core/dict";
export * from "../result";
