/** The status API: its queries and its answers, as the coordinator, the CLI and the page read them. */
export * from "./lifecycle";
export * from "./query";
export * from "./views";
