/**
 * The route table, derived from the registered routes: tells an unknown path (404) from a
 * known path called with a method it does not support (405, with Allow).
 */
import type { Hono } from "hono";
import type { AppEnv } from "./context";

type Entry = { regex: RegExp; method: string; path: string };

function patternToRegex(path: string): RegExp {
  let out = "";
  let i = 0;
  while (i < path.length) {
    const ch = path[i]!;
    if (ch === ":") {
      let j = i + 1;
      while (j < path.length && /[\w]/.test(path[j]!)) j++;
      if (path[j] === "{") {
        let depth = 0;
        let k = j;
        for (; k < path.length; k++) {
          if (path[k] === "{") depth++;
          else if (path[k] === "}" && --depth === 0) break;
        }
        out += `(?:${path.slice(j + 1, k)})`;
        i = k + 1;
      } else {
        out += "[^/]+";
        i = j;
      }
    } else if (ch === "*") {
      out += ".*";
      i++;
    } else {
      out += ch.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
      i++;
    }
  }
  return new RegExp(`^${out.replace(/\/$/, "")}/?$`);
}

export class RouteTable {
  private entries: Entry[] | null = null;
  constructor(
    private readonly app: Hono<AppEnv>,
    private readonly prefix: string,
  ) {}

  private table(): Entry[] {
    if (!this.entries) {
      const seen = new Set<string>();
      this.entries = [];
      for (const r of this.app.routes) {
        if (r.method === "ALL" || !r.path.startsWith(this.prefix)) continue;
        const key = `${r.method} ${r.path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        this.entries.push({ regex: patternToRegex(r.path), method: r.method, path: r.path });
      }
    }
    return this.entries;
  }

  /** Every method and pattern the router serves under the prefix (the API description must list exactly these). */
  routes(): { method: string; path: string }[] {
    return this.table().map(({ method, path }) => ({ method, path }));
  }

  /** Methods registered for a concrete path (empty: unknown path). HEAD comes with GET. */
  methodsFor(path: string): string[] {
    const methods = new Set<string>();
    for (const e of this.table()) if (e.regex.test(path)) methods.add(e.method);
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  }
}
