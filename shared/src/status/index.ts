export * from "./query";
export * from "./views";
