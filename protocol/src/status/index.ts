/** The status API: its queries and its answers, as the coordinator, the CLI and the page read them. */
export * from "./changeRecord";
export * from "./controlPlane";
export * from "./lifecycle";
export * from "./query";
export * from "./views";
