export * from "./organizers";
export * from "./events";
export * from "./devices";
export * from "./platform";
export * from "./catalog";
export * from "./items";
export * from "./customers";
export * from "./sales";
