// What the notification tests share: the receiving services' schemas and a receiver for them.
export * from "./hostile";
export * from "./receiver";
export * from "./schemas";
