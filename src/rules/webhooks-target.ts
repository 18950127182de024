/**
 * Where a webhook may send to: an absolute `https` URL whose host is a public name or address, never
 * a non-public address literal, a locally resolving name, or a name that spells such an address
 * (docs/webhooks.md); loopback also over `http` with WEBHOOK_ALLOW_LOOPBACK. Names are checked as
 * written: the Workers runtime resolves them and shows no address, so DNS rebinding is out of scope.
 */

export type TargetRules = { allowLoopback: boolean };

export const TARGET_MESSAGES = {
  invalid: "Enter a valid URL.",
  https: "Enter an https URL (http is accepted only for the loopback interface when the deployment allows it).",
  private: "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
  localName: "The URL must point to a public host name or address.",
} as const;

type Kind = "public" | "loopback" | "private";

// ---- IPv4 ----

/** Non-public IPv4 ranges (IANA special-purpose registry), loopback apart. */
const IPV4_PRIVATE: [string, number][] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // shared address space (carrier-grade NAT)
  ["169.254.0.0", 16], // link-local (cloud metadata services live here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and broadcast
];

function ipv4Number(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

function inRange(n: number, base: string, prefix: number): boolean {
  const size = 2 ** (32 - prefix);
  const start = ipv4Number(base)!;
  return n >= start && n < start + size;
}

function ipv4Kind(n: number): Kind {
  if (inRange(n, "127.0.0.0", 8)) return "loopback";
  return IPV4_PRIVATE.some(([base, prefix]) => inRange(n, base, prefix)) ? "private" : "public";
}

// ---- IPv6 ----

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it (compressed, hex), or null. */
function ipv6Groups(text: string): number[] | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) =>
    s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...head, ...tail].some(Number.isNaN)) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  return [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
}

function ipv6Kind(g: number[]): Kind {
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "loopback"; // ::1
  // Only global unicast (2000::/3) is public; that excludes ::, IPv4-mapped and -compatible
  // forms, NAT64, discard, unique local (fc00::/7), link-local (fe80::/10), multicast.
  if ((g[0]! & 0xe000) !== 0x2000) return "private";
  if (g[0] === 0x2001 && g[1]! < 0x200) return "private"; // 2001::/23 IETF protocol assignments (Teredo, benchmarking, ORCHID)
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "private"; // documentation
  if (g[0] === 0x2002) return "private"; // 6to4: carries an IPv4 address of any kind
  if (g[0] === 0x3fff && g[1]! < 0x1000) return "private"; // 3fff::/20 documentation
  return "public";
}

// ---- names ----

/** Top-level (or last two) labels that only resolve inside a network. */
const LOCAL_SUFFIXES = ["local", "localdomain", "internal", "intranet", "lan", "home", "corp", "private", "home.arpa"];

/** IPv4 addresses spelled into a name (`10.0.0.1.nip.io`, `10-0-0-1.sslip.io`). */
const EMBEDDED_IPV4 = /(?:^|[.-])(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})(?=$|[.-])/g;

function nameKind(host: string): Kind | "local" {
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (!host.includes(".")) return "local";
  if (LOCAL_SUFFIXES.some((s) => host.endsWith(`.${s}`))) return "local";
  let kind: Kind = "public";
  for (const m of host.matchAll(EMBEDDED_IPV4)) {
    const n = ipv4Number(m.slice(1, 5).join("."));
    if (n === null) continue;
    const k = ipv4Kind(n);
    if (k === "private") return "private";
    if (k === "loopback") kind = "loopback";
  }
  return kind;
}

/** The kind of a URL's host; the URL parser has already turned `127.1`, `0x7f000001` and `[::ffff:127.0.0.1]` into their plain forms. */
function hostKind(hostname: string): Kind | "local" | null {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "") return null;
  if (host.startsWith("[")) {
    const g = host.endsWith("]") ? ipv6Groups(host.slice(1, -1)) : null;
    return g ? ipv6Kind(g) : null;
  }
  const n = ipv4Number(host);
  if (n !== null) return ipv4Kind(n);
  if (/^[\d.]+$/.test(host)) return null;
  return nameKind(host);
}

/** Why `raw` cannot be a webhook's target (a message for `target_url`), or null when it can. */
export function targetUrlProblem(raw: string, rules: TargetRules): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return TARGET_MESSAGES.invalid;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return TARGET_MESSAGES.invalid;
  const kind = hostKind(url.hostname);
  if (kind === null) return TARGET_MESSAGES.invalid;
  if (kind === "loopback" && rules.allowLoopback) return null;
  if (url.protocol === "http:") return TARGET_MESSAGES.https;
  if (kind === "local") return TARGET_MESSAGES.localName;
  if (kind !== "public") return TARGET_MESSAGES.private;
  return null;
}

/**
 * The URL to call and the Authorization header of credentials written into it
 * (`https://user:password@host/`, which pretix documents for Basic authentication).
 */
export function requestTarget(raw: string): { url: string; authorization: string | null } {
  const url = new URL(raw);
  if (url.username === "" && url.password === "") return { url: url.toString(), authorization: null };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  return { url: url.toString(), authorization: `Basic ${btoa(String.fromCharCode(...bytes))}` };
}
