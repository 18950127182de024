export * from "./organizers";
export * from "./events";
export * from "./devices";
export * from "./platform";
