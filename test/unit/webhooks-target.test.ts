/** Where a webhook may send to (rules/webhooks-target.ts), with and without WEBHOOK_ALLOW_LOOPBACK; Basic credentials of a target. */
import { describe, expect, it } from "vitest";
import { readConfig, type Env } from "../../src/lib/env";
import { requestTarget, TARGET_MESSAGES, targetUrlProblem } from "../../src/rules/webhooks-target";

const strict = { allowLoopback: false };
const local = { allowLoopback: true };

describe("webhook targets", () => {
  it("accepts https to public names and addresses", () => {
    for (const url of [
      "https://hooks.example.org/in",
      "https://HOOKS.Example.org./in",
      "https://user:pw@hooks.example.org:8443/in?x=1#f",
      "https://93.184.215.14/",
      "https://8.8.8.8/",
      "https://172.32.0.1/",
      "https://[2606:4700:4700::1111]/",
      "https://[2a00:1450:4001:81a::200e]/",
      "https://xn--bcher-kva.example/",
    ]) {
      expect(targetUrlProblem(url, strict), url).toBeNull();
    }
  });

  it("refuses what is not an http(s) URL", () => {
    for (const url of [
      "foo.bar",
      "",
      "/relative",
      "ftp://hooks.example.org/",
      "javascript:alert(1)",
      "https://",
      "https://1.2.3.999/",
      "https://[::1/",
    ]) {
      expect(targetUrlProblem(url, strict), url).toBe(TARGET_MESSAGES.invalid);
    }
  });

  it("refuses http, also to public hosts", () => {
    expect(targetUrlProblem("http://hooks.example.org/in", strict)).toBe(TARGET_MESSAGES.https);
    expect(targetUrlProblem("http://hooks.example.org/in", local)).toBe(TARGET_MESSAGES.https);
  });

  it("refuses private, loopback, link-local, shared, reserved, multicast and documentation IPv4 addresses, in every spelling", () => {
    for (const host of [
      "127.0.0.1",
      "127.1",
      "0x7f.0.0.1",
      "0177.0.0.1",
      "2130706433",
      "0.0.0.0",
      "10.0.0.1",
      "10.255.255.255",
      "100.64.0.1",
      "169.254.169.254",
      "172.16.0.1",
      "172.31.255.255",
      "192.0.0.8",
      "192.0.2.1",
      "192.168.1.1",
      "198.18.0.1",
      "198.51.100.7",
      "203.0.113.9",
      "224.0.0.1",
      "240.0.0.1",
      "255.255.255.255",
    ]) {
      expect(targetUrlProblem(`https://${host}/in`, strict), host).toBe(TARGET_MESSAGES.private);
    }
  });

  it("refuses non-global IPv6 addresses, also IPv4 ones written as IPv6", () => {
    for (const host of [
      "::1",
      "::",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "::ffff:8.8.8.8",
      "::127.0.0.1",
      "64:ff9b::a00:1",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "fec0::1",
      "ff02::1",
      "100::1",
      "2001:db8::1",
      "2001::1",
      "2002:a00:1::1",
      "3fff::1",
    ]) {
      expect(targetUrlProblem(`https://[${host}]/in`, strict), host).toBe(TARGET_MESSAGES.private);
    }
  });

  it("refuses names that resolve locally or spell out a non-public address", () => {
    for (const host of [
      "localhost",
      "LOCALHOST.",
      "api.localhost",
      "127.0.0.1.nip.io",
      "10-0-0-1.sslip.io",
      "app.192.168.1.20.nip.io",
    ]) {
      expect(targetUrlProblem(`https://${host}/in`, strict), host).toBe(TARGET_MESSAGES.private);
    }
    for (const host of ["intranet", "printer.local", "svc.internal", "nas.home.arpa", "box.lan"]) {
      expect(targetUrlProblem(`https://${host}/in`, strict), host).toBe(TARGET_MESSAGES.localName);
    }
    // an address-like part that is public, or not an address at all, is fine
    expect(targetUrlProblem("https://8-8-8-8.sslip.io/in", strict)).toBeNull();
    expect(targetUrlProblem("https://v1-2-3-4567.example.org/in", strict)).toBeNull();
  });

  it("with WEBHOOK_ALLOW_LOOPBACK: the loopback interface over http or https, nothing else private", () => {
    for (const url of [
      "http://localhost:8787/hook",
      "http://127.0.0.1:3000/",
      "https://127.0.0.2/",
      "http://[::1]:9000/",
      "http://api.localhost/",
    ]) {
      expect(targetUrlProblem(url, local), url).toBeNull();
      expect(targetUrlProblem(url, strict), url).not.toBeNull();
    }
    expect(targetUrlProblem("http://10.0.0.1/", local)).toBe(TARGET_MESSAGES.https);
    expect(targetUrlProblem("https://10.0.0.1/", local)).toBe(TARGET_MESSAGES.private);
    expect(targetUrlProblem("https://[fe80::1]/", local)).toBe(TARGET_MESSAGES.private);
    expect(targetUrlProblem("http://printer.local/", local)).toBe(TARGET_MESSAGES.https);
  });

  it('reads WEBHOOK_ALLOW_LOOPBACK: only "1" turns it on', () => {
    const env = (v: string | undefined) => ({ WEBHOOK_ALLOW_LOOPBACK: v }) as unknown as Env;
    expect(readConfig(env("1")).webhooks).toEqual({ allowLoopback: true });
    expect(readConfig(env("")).webhooks).toEqual({ allowLoopback: false });
    expect(readConfig(env(undefined)).webhooks).toEqual({ allowLoopback: false });
    expect(readConfig(env("true")).webhooks).toEqual({ allowLoopback: false });
    expect(readConfig(env("0")).webhooks).toEqual({ allowLoopback: false });
  });

  it("turns credentials in the URL into a Basic Authorization header", () => {
    expect(requestTarget("https://hooks.example.org/in?a=1")).toEqual({
      url: "https://hooks.example.org/in?a=1",
      authorization: null,
    });
    expect(requestTarget("https://shop:p%40ss%3Aword@hooks.example.org/in")).toEqual({
      url: "https://hooks.example.org/in",
      authorization: `Basic ${btoa("shop:p@ss:word")}`,
    });
  });
});
