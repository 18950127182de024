/**
 * One shard of an on-sale queue (named `<queueId>:<k>`, docs/onsale-queue.md): visitors join a
 * random shard, which keeps them with their ordering keys in its SQLite, answers their status,
 * signs their admission when the coordinator's frontier has passed them, and pushes their state
 * to their WebSockets (hibernation API). Only the coordinator moves the frontier.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../lib/env";
import { randomString } from "../../lib/crypto";
import { log } from "../../lib/log";
import { signAdmission } from "../../lib/waiting-room-tokens";
import { orderingKey, type ShardSummary } from "../../rules/queue-order";
import { queueCoordinator } from "./names";
import { ShardStore } from "./shard-store";
import { admissionExpiry, queueStatusBody, visitorStatus } from "./status";
import type { Candidates, Frontier, Push, QueueSettings, VisitorStatus } from "./types";

const NONCE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** A shard that has not heard from the coordinator for this long wakes it on the next join. */
const COORDINATOR_SILENCE_MS = 6_000;

type ShardState = {
  shard: number;
  settings: QueueSettings;
  closed: boolean;
  frontier: Frontier | null;
  summaries: ShardSummary[];
  admitted: number;
  pushedAt: number;
};

function uniform(): number {
  const [hi, lo] = crypto.getRandomValues(new Uint32Array(2));
  return (hi! * 2 ** 21 + (lo! >>> 11)) / 2 ** 53;
}

export type JoinAnswer = { nonce: string; joinedAt: number; status: VisitorStatus } | null;

export class QueueShard extends DurableObject<Env> {
  private readonly store: ShardStore;
  private state: ShardState | null;
  private wokeAt = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new ShardStore(ctx.storage.sql);
    this.state = this.store.readState<ShardState>();
  }

  /** Records a visitor (null: the queue is closed). `settings` are the Worker's; the coordinator's win once pushed. */
  async join(settings: QueueSettings, shard: number): Promise<JoinAnswer> {
    const now = Date.now();
    if (!this.state || this.state.settings.queueId !== settings.queueId) {
      this.state = { shard, settings, closed: false, frontier: null, summaries: [], admitted: 0, pushedAt: 0 };
      this.store.writeState(this.state);
    }
    const s = this.state;
    if (s.closed) return null;
    const n = randomString(16, NONCE_ALPHABET);
    this.store.insert(n, orderingKey(s.settings.arrivalOrder, now, s.settings.opensAt, uniform()), now);
    this.wakeCoordinator(now);
    return { nonce: n, joinedAt: now, status: (await this.statusOf(n, now))! };
  }

  /** A visitor's state (null: no such visitor here). */
  status(visitor: string): Promise<VisitorStatus | null> {
    return this.statusOf(visitor, Date.now());
  }

  /** The coordinator's first round: apply the last frontier, then the `k` smallest waiting keys and the summary. */
  candidates(k: number, frontier: Frontier | null): Candidates {
    if (frontier) this.store.applyFrontier(frontier);
    return { ...this.store.waiting(k), summary: this.store.summary() };
  }

  /** The coordinator's second round: its decision, applied and pushed to the visitors' sockets. */
  async advance(push: Push, shard: number): Promise<number> {
    const admittedNow = push.frontier ? this.store.applyFrontier(push.frontier) : 0;
    this.state = {
      shard,
      settings: push.settings,
      closed: push.closed,
      frontier: push.frontier,
      summaries: push.summaries,
      admitted: push.admitted,
      pushedAt: push.at,
    };
    this.store.writeState(this.state);
    await this.pushToSockets();
    return admittedNow;
  }

  /** The queue's row is gone: its waiting visitors see "closed", and it takes no one new. */
  async close(at: number): Promise<void> {
    if (!this.state) return;
    this.state = { ...this.state, closed: true, pushedAt: at };
    this.store.writeState(this.state);
    await this.pushToSockets();
  }

  /** The live endpoint: the Worker checked the ticket and names the visitor in `X-Queue-Visitor`. */
  override async fetch(request: Request): Promise<Response> {
    const visitor = request.headers.get("X-Queue-Visitor") ?? "";
    const status = await this.status(visitor);
    if (!status || !this.state) return new Response(null, { status: 404 });
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [visitor]);
    this.send(server, status);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Any message from a visitor's socket asks for its state again. */
  override async webSocketMessage(ws: WebSocket): Promise<void> {
    const [visitor] = this.ctx.getTags(ws);
    const status = visitor ? await this.status(visitor) : null;
    if (status) this.send(ws, status);
    else ws.close(1008, "unknown visitor");
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    ws.close(code === 1005 ? 1000 : code, "closed");
  }

  private send(ws: WebSocket, status: VisitorStatus): void {
    if (!this.state) return;
    ws.send(JSON.stringify(queueStatusBody(this.state.settings.queueId, status)));
    // a socket's work is done once its visitor's turn has come (or will not come)
    if (status.state !== "waiting") ws.close(1000, status.state);
  }

  private async pushToSockets(): Promise<void> {
    for (const ws of this.ctx.getWebSockets()) {
      const [visitor] = this.ctx.getTags(ws);
      const status = visitor ? await this.status(visitor) : null;
      try {
        if (status) this.send(ws, status);
      } catch (e) {
        log.warn("queue socket send failed", { error: e });
      }
    }
  }

  private async statusOf(visitor: string, now: number): Promise<VisitorStatus | null> {
    const s = this.state;
    const row = s ? this.store.visitor(visitor) : null;
    if (!s || !row) return null;
    let token = row.token;
    if (row.admitted_at !== null && token === null && now < admissionExpiry(s.settings, row.admitted_at)) {
      token = await this.admissionToken(s.settings, visitor, row.admitted_at);
    }
    const others = s.summaries.filter((_, i) => i !== s.shard);
    const ownBefore = row.admitted_at === null && !s.closed ? this.store.countBefore(row) : 0;
    return visitorStatus({
      settings: s.settings,
      closed: s.closed,
      row,
      token,
      ownBefore,
      others,
      admitted: s.admitted,
      now,
    });
  }

  /** Signs the admission once; every later ask gets the same token. */
  private async admissionToken(settings: QueueSettings, visitor: string, admittedAt: number): Promise<string> {
    const secret = this.env.TICKET_SIGNING_KEY_SECRET;
    if (!secret) throw new Error("TICKET_SIGNING_KEY_SECRET is not set");
    const token = await signAdmission(secret, {
      q: settings.queueId,
      e: settings.eventId,
      s: settings.subeventId,
      a: visitor,
      o: settings.ordersPerAdmission,
      x: admissionExpiry(settings, admittedAt),
    });
    const again = this.store.visitor(visitor);
    if (again?.token) return again.token;
    this.store.setToken(visitor, token);
    return token;
  }

  private wakeCoordinator(now: number): void {
    const s = this.state!;
    if (now - s.pushedAt < COORDINATOR_SILENCE_MS || now - this.wokeAt < 1_000) return;
    this.wokeAt = now;
    this.ctx.waitUntil(
      queueCoordinator(this.env, s.settings.queueId)
        .wake(s.settings.queueId, s.settings.eventId)
        .catch((e: unknown) => log.warn("queue coordinator wake failed", { error: e })),
    );
  }
}
