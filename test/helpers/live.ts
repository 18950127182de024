/**
 * A subscriber of an event's live availability in the tests: opens the stream of server-sent
 * events through the worker (`Accept: text/event-stream`) and reads its events one by one, as
 * a browser's EventSource would.
 */
import { exports } from "cloudflare:workers";
import { BASE, type Json } from "../harness";

export type LiveEvent = { id: string; event: string; data: Json; retry: string | null };

export class LiveSubscriber {
  private readonly decoder = new TextDecoder();
  private buffer = "";
  /** Events read so far. */
  received = 0;

  private constructor(
    readonly response: Response,
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
  ) {}

  static async open(path: string): Promise<LiveSubscriber> {
    const res = await exports.default.fetch(
      new Request(path.startsWith("http") ? path : `${BASE}${path}`, { headers: { Accept: "text/event-stream" } }),
    );
    if (!res.body) throw new Error(`no stream: ${res.status} ${await res.text()}`);
    return new LiveSubscriber(res, res.body.getReader());
  }

  /** The next event (keep-alive comments skipped); fails after `timeoutMs`. */
  async next(timeoutMs = 10_000): Promise<LiveEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const fields = new Map<string, string>();
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const at = line.indexOf(": ");
          if (at > 0) fields.set(line.slice(0, at), line.slice(at + 2));
        }
        if (!fields.has("data")) continue;
        this.received++;
        return {
          id: fields.get("id") ?? "",
          event: fields.get("event") ?? "",
          data: JSON.parse(fields.get("data")!),
          retry: fields.get("retry") ?? null,
        };
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no event in time");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("no event in time")), left);
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk.done) throw new Error("the stream ended");
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** Reads events until one's data satisfies `pred`; returns it. */
  async until(pred: (data: Json) => boolean, timeoutMs = 10_000): Promise<LiveEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await this.next(Math.max(1, deadline - Date.now()));
      if (pred(e.data)) return e;
    }
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}

/** The product `item` (variation null) on the event itself (first date) of a state. */
export const productOf = (data: Json, item: number, variation: number | null = null) =>
  data.dates[0].products.find((p: Json) => p.item === item && p.variation === variation);
