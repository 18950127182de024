import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

/**
 * One instance per event (named by the event id): the single place where contended
 * decisions are taken (quota, seats, vouchers, check-in). See docs in ARCHITECTURE.
 */
export class EventObject extends DurableObject<Env> {}
