/**
 * The signature verification snippet of docs/webhooks.md, run as a receiver would run it,
 * against the service's own signing code: the documentation cannot drift from what is sent.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..", "..");
const dir = mkdtempSync(path.join(tmpdir(), "webhooks-snippet-"));
type Verify = (secret: string, header: string | null, rawBody: string, toleranceSeconds?: number) => Promise<boolean>;
type Sign = (secret: string, body: string, unixSeconds: number) => Promise<string>;
let verifyWebhook: Verify;
/** The service's signing code (src/services/organizers/webhooks-delivery.ts; loaded through vitest, which resolves the worker's imports). */
let signatureHeader: Sign;

beforeAll(async () => {
  const service = path.join(root, "src/services/organizers/webhooks-delivery.ts");
  ({ signatureHeader } = (await import(service)) as { signatureHeader: Sign });
  const doc = readFileSync(path.join(root, "docs/webhooks.md"), "utf8");
  const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks).toHaveLength(1);
  const file = path.join(dir, "verify.mjs");
  writeFileSync(file, blocks[0]!);
  ({ verifyWebhook } = (await import(pathToFileURL(file).href)) as { verifyWebhook: Verify });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/webhooks.md: verifying the signature", () => {
  const secret = "p9XrT2mK8vQ4wL6nB3cF7hJ1sD5gA0zYeUoIiRtW2qE8yHxN";
  const body = JSON.stringify({
    notification_id: 42,
    organizer: "acmecorp",
    event: "democon",
    code: "ABC23",
    action: "pretix.event.order.placed",
  });
  const now = () => Math.floor(Date.now() / 1000);

  it("accepts what the service signs", async () => {
    expect(await verifyWebhook(secret, await signatureHeader(secret, body, now()), body)).toBe(true);
    const unicode = JSON.stringify({
      notification_id: 43,
      organizer: "straße",
      event: "démo",
      code: "ABC23",
      action: "pretix.event.checkin",
    });
    expect(await verifyWebhook(secret, await signatureHeader(secret, unicode, now()), unicode)).toBe(true);
  });

  it("refuses another body, another secret, an old timestamp, a changed timestamp and malformed headers", async () => {
    const header = await signatureHeader(secret, body, now());
    expect(await verifyWebhook(secret, header, body.replace("ABC23", "ABC24"))).toBe(false);
    expect(await verifyWebhook(secret, header, `${body} `)).toBe(false);
    expect(await verifyWebhook("another secret", header, body)).toBe(false);
    expect(await verifyWebhook(secret, await signatureHeader(secret, body, now() - 600), body)).toBe(false);
    expect(await verifyWebhook(secret, await signatureHeader(secret, body, now() - 600), body, 900)).toBe(true);
    const t = Number(/t=(\d+)/.exec(header)![1]);
    expect(await verifyWebhook(secret, header.replace(`t=${t}`, `t=${t - 1}`), body)).toBe(false);
    for (const bad of [null, "", "v1=abc", `t=${t}`, `t=${t},v1=`, `t=x,v1=${"0".repeat(64)}`, header.toUpperCase()]) {
      expect(await verifyWebhook(secret, bad, body), String(bad)).toBe(false);
    }
  });
});
