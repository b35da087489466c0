// The status client moved to the cli package; re-exported for the tests that start a cluster.
export { StatusClient } from "@quiesce/cli";
export * from "./cluster";
export * from "./hookService";
