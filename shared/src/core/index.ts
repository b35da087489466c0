export * from "./decide";
export * from "./policy";
export * from "./state";
export * from "./types";
