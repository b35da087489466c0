export * from "./cluster";
export * from "./statusClient";
