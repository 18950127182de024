/**
 * Fake webhook receivers for the webhook tests, routed by URL: receivers that answer, fail,
 * refuse connections, hang until the request is aborted, or answer slowly. Every request a
 * receiver gets is recorded, with its exact body and headers.
 *
 * The tests deliver themselves (`deliverAt`, at a simulated time, with `receiverFetch`). The
 * real queue consumer runs in the background of the tests' isolate too, with the global
 * `fetch`: that is replaced by one that reaches only receivers opened to it (`background`),
 * so the background's attempts elsewhere fail at once and change nothing but attempt counts
 * of calls it found due by the real clock.
 */
import type { WebhookMessage } from "../../src/lib/queues";
import { afterAll } from "vitest";
import { db, groupTestEnv } from "../harness";
import { deliverWebhookMessage, type DeliveryOptions } from "../../src/services/organizers/webhooks-delivery";

export type Received = {
  url: string;
  body: string;
  json: Record<string, any>;
  headers: Headers;
  answered: number | "timeout" | "refused";
};

/** How a receiver answers its n-th request (0-based): a status, "refuse" (connection failure), "hang" (until aborted), or a status after a delay. */
export type Behaviour = (n: number) => number | "refuse" | "hang" | { status: number; afterMs: number; body?: string };

export class Receiver {
  readonly requests: Received[] = [];
  behaviour: Behaviour;
  constructor(
    readonly url: string,
    behaviour: Behaviour,
    readonly background: boolean,
  ) {
    this.behaviour = behaviour;
  }
  /** The bodies of the requests answered 2xx, in the order they arrived. */
  get accepted(): Record<string, any>[] {
    return this.requests
      .filter((r) => typeof r.answered === "number" && r.answered >= 200 && r.answered < 300)
      .map((r) => r.json);
  }
}

const receivers = new Map<string, Receiver>();
let counter = 0;

/** A receiver at a fresh https URL. Default: answers 200; reached only by the tests' own deliveries. */
export function receiver(behaviour: Behaviour = () => 200, opts: { background?: boolean } = {}): Receiver {
  counter++;
  const r = new Receiver(`https://hooks${counter}.example.org/receive/${counter}`, behaviour, opts.background ?? false);
  receivers.set(r.url, r);
  return r;
}

const aborted = (signal: AbortSignal | null | undefined) =>
  new Promise<never>((_, reject) => {
    if (!signal) return;
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason));
  });

async function route(input: RequestInfo | URL, init: RequestInit | undefined, background: boolean): Promise<Response> {
  const req = new Request(input, init);
  const target = receivers.get(req.url.replace(/\?.*$/, ""));
  if (!target || (background && !target.background)) throw new TypeError(`no route to ${req.url} in the tests`);
  const body = await req.text();
  const entry: Received = { url: req.url, body, json: JSON.parse(body), headers: req.headers, answered: "refused" };
  target.requests.push(entry);
  const how = target.behaviour(target.requests.length - 1);
  if (how === "refuse") throw new TypeError("connection refused");
  if (how === "hang") {
    entry.answered = "timeout";
    return aborted(init?.signal);
  }
  if (typeof how === "number") {
    entry.answered = how;
    return new Response(how === 204 ? null : `answer ${how}`, { status: how });
  }
  await Promise.race([new Promise((r) => setTimeout(r, how.afterMs)), aborted(init?.signal)]).catch((e) => {
    entry.answered = "timeout";
    throw e;
  });
  entry.answered = how.status;
  return new Response(how.body ?? `slow answer ${how.status}`, { status: how.status });
}

/** The tests' own deliveries reach every receiver. */
export const receiverFetch = ((input: RequestInfo | URL, init?: RequestInit) =>
  route(input, init, false)) as typeof fetch;

const realFetch = globalThis.fetch;

/** What the background gets after a file with receivers: their URLs stay unreachable, the rest is the real fetch. */
const afterReceivers = ((input: RequestInfo | URL, init?: RequestInit) => {
  const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const url = href.replace(/\?.*$/, "");
  if (receivers.has(url)) return Promise.reject(new TypeError(`no route to ${url} after its test file`));
  return realFetch(input, init);
}) as typeof fetch;

/**
 * Installs the fake global fetch (the background consumer's) for the test file. The files of a
 * project share one isolate (test/vitest.config.ts): after the file's tests the real fetch is
 * back for the next files (the Stripe stand-in is reached through it), but queue messages sent
 * during the tests (delayed retries among them) may still be consumed later, and their calls
 * to this file's receivers must not reach the network either.
 */
export function useReceivers(): void {
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => route(input, init, true)) as typeof fetch;
  afterAll(() => {
    globalThis.fetch = afterReceivers;
  });
}

/** Delivers an order's due notifications at the simulated time `now`, as the queue consumer does, to the receivers. */
export function deliverAt(now: number, m: Omit<WebhookMessage, "kind">, opts: Omit<DeliveryOptions, "now"> = {}) {
  return deliverWebhookMessage(
    groupTestEnv(),
    db(),
    { kind: "webhook", ...m },
    { fetch: receiverFetch, ...opts, now: () => now },
  );
}
