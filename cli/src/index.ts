export * from "./render";
export * from "./statusClient";
