/**
 * A V8 CPU profile of the local service (`npm run bench -- --profile DIR`): the benchmark asks
 * wrangler's inspector (`--inspector-port`) to sample the Worker's isolate, where the event's
 * object runs too, while one phase runs; the profile is written as a `.cpuprofile` (Chrome's
 * DevTools, speedscope) and summarized by the project's source files and by the object's calls.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[]; hitCount?: number };
export type CpuProfile = {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
};

/** Connects to the inspector's first target (the Worker's isolate) and sends commands. */
async function connect(inspectorPort: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const listed = targets[0]?.webSocketDebuggerUrl;
  if (!listed) throw new Error(`the inspector on ${inspectorPort} lists no target`);
  // the listed host may be `localhost`, which Node may resolve to ::1 where the inspector does not listen
  const url = listed.replace(/^ws:\/\/[^/]+/, `ws://127.0.0.1:${inspectorPort}`);
  // the inspector takes a debugger of a local origin only (Node's WebSocket sends none unless told; undici's `headers`)
  const ws = new WebSocket(url, { headers: { Origin: "http://127.0.0.1" } } as unknown as string[]);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = (e) =>
      reject(new Error(`the inspector's ${url} (listed: ${listed}): ${(e as Event & { message?: string }).message}`));
  });
  let next = 1;
  const pending = new Map<number, (r: any) => void>();
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data));
    if (msg.id !== undefined) pending.get(msg.id)?.(msg);
  };
  const send = (method: string, params: object = {}) =>
    new Promise<any>((resolve, reject) => {
      const id = next++;
      pending.set(id, (msg) => (msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result)));
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

/**
 * Runs `run` while the inspector samples (every `intervalUs` µs); the profile is written to
 * `file`. Without an inspector to talk to, `run` runs unprofiled (`profile` null, `error` why).
 */
export async function profiled<T>(
  inspectorPort: number,
  file: string,
  run: () => Promise<T>,
  intervalUs = 200,
): Promise<{ value: T; profile: CpuProfile | null; error?: string }> {
  let inspector: Awaited<ReturnType<typeof connect>>;
  try {
    inspector = await connect(inspectorPort);
  } catch (e) {
    return { value: await run(), profile: null, error: String(e) };
  }
  try {
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval: intervalUs });
    await inspector.send("Profiler.start");
    const value = await run();
    const { profile } = (await inspector.send("Profiler.stop")) as { profile: CpuProfile };
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(profile));
    return { value, profile };
  } finally {
    inspector.close();
  }
}

/** Milliseconds of samples per node (self time). */
function selfTimes(p: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) {
    const id = p.samples[i]!;
    self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i + 1] ?? p.timeDeltas[i] ?? 0) / 1000);
  }
  return self;
}

/** The map of a bundle workerd names by its file name only: wrangler's newest `.wrangler/tmp/dev-*` (or PROFILE_BUNDLE_DIR). */
function bundleMap(name: string): string | null {
  const tmp = path.join(import.meta.dirname, "../../.wrangler/tmp");
  const dirs = process.env.PROFILE_BUNDLE_DIR
    ? [process.env.PROFILE_BUNDLE_DIR]
    : existsSync(tmp)
      ? readdirSync(tmp)
          .filter((d) => d.startsWith("dev-"))
          .map((d) => path.join(tmp, d))
          .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
      : [];
  const found = dirs.map((d) => path.join(d, `${name}.map`)).find((f) => existsSync(f));
  return found ?? null;
}

/** The source maps of wrangler's bundles, by the bundle's URL (null: none). */
const maps = new Map<string, SourceMap | null>();
function mapOf(url: string): SourceMap | null {
  if (!maps.has(url)) {
    let map: SourceMap | null = null;
    try {
      const file = url.startsWith("file:") ? `${fileURLToPath(url)}.map` : bundleMap(url);
      if (file && existsSync(file)) map = new SourceMap(JSON.parse(readFileSync(file, "utf8")));
    } catch {
      /* no map */
    }
    maps.set(url, map);
  }
  return maps.get(url)!;
}

/**
 * Where a frame's code lives, through the bundle's source map: the project's source file and
 * line, a dependency (`node_modules/<package>`), or the runtime's own (`(program)`, `(gc)`).
 */
function placeOf(f: CallFrame): { file: string; line: number } {
  if (!f.url) return { file: f.functionName || "(anonymous)", line: 0 };
  const entry = mapOf(f.url)?.findEntry(f.lineNumber, f.columnNumber);
  const source = entry && "originalSource" in entry ? entry.originalSource : f.url;
  const line = entry && "originalLine" in entry ? entry.originalLine + 1 : f.lineNumber + 1;
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (dep) return { file: `node_modules/${dep[1]}`, line };
  const own = /\/(src\/.+)$/.exec(source);
  return { file: own ? own[1]! : source, line };
}

export type ProfileSummary = {
  /** Sampled milliseconds in all, and the ones the isolate was busy (not idle). */
  total_ms: number;
  busy_ms: number;
  /** Self time by place (source file, dependency, garbage collection, the runtime's own). */
  by_place: { place: string; ms: number; share: number }[];
  /** Self time by function, the heaviest. */
  by_function: { function: string; place: string; ms: number; share: number }[];
  /**
   * Busy time by side: a sample whose stack has a frame of `src/objects/event/` is the event
   * object's, one with other code of the service or its dependencies the Worker's, the rest
   * the runtime's (garbage collection, `(program)`: the runtime's own work, I/O, RPC).
   */
  sides: { object_ms: number; worker_ms: number; runtime_ms: number };
  /** Inclusive time of the frames named (each counted once per sample, even when nested). */
  inclusive: Record<string, number>;
};

/** Self and inclusive time of a profile; `roots`: functions whose inclusive time is wanted (e.g. the object's `countedCall`). */
export function summarizeProfile(p: CpuProfile, roots: string[], top = 25): ProfileSummary {
  const self = selfTimes(p);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self.entries()].filter(([id]) => byId.get(id)?.callFrame.functionName === "(idle)");
  const busy = total - idle.reduce((a, [, ms]) => a + ms, 0);
  const add = (m: Map<string, number>, k: string, ms: number) => m.set(k, (m.get(k) ?? 0) + ms);
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  const inclusive: Record<string, number> = Object.fromEntries(roots.map((r) => [r, 0]));
  const sides = { object_ms: 0, worker_ms: 0, runtime_ms: 0 };
  const sideOf = (id: number): keyof typeof sides => {
    let side: keyof typeof sides = "runtime_ms";
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (!f.url) continue;
      const file = placeOf(f).file;
      if (file.startsWith("src/objects/event/")) return "object_ms";
      side = "worker_ms";
    }
    return side;
  };
  for (const [id, ms] of self) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === "(idle)") continue;
    sides[sideOf(id)] += ms;
    const place = placeOf(f);
    add(places, place.file, ms);
    add(functions, `${f.functionName || "(anonymous)"}\u0000${place.file}:${place.line}`, ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = byId.get(at)!.callFrame.functionName;
      if (name in inclusive && !seen.has(name)) {
        inclusive[name]! += ms;
        seen.add(name);
      }
    }
  }
  const share = (ms: number) => Math.round((ms / busy) * 1000) / 10;
  const ms1 = (ms: number) => Math.round(ms * 10) / 10;
  return {
    total_ms: ms1(total),
    busy_ms: ms1(busy),
    by_place: [...places]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([place, ms]) => ({ place, ms: ms1(ms), share: share(ms) })),
    by_function: [...functions]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, ms]) => {
        const [fn, place] = k.split("\u0000") as [string, string];
        return { function: fn, place, ms: ms1(ms), share: share(ms) };
      }),
    sides: { object_ms: ms1(sides.object_ms), worker_ms: ms1(sides.worker_ms), runtime_ms: ms1(sides.runtime_ms) },
    inclusive: Object.fromEntries(Object.entries(inclusive).map(([k, v]) => [k, ms1(v)])),
  };
}

/** The profile's file in `dir` for a phase. */
export const profileFile = (dir: string, phase: string) => path.join(dir, `${phase}.cpuprofile`);

/**
 * A profile per operation (an order, a scan): the event object's own CPU time per operation (its
 * code and what it calls), the Worker's, the runtime's, and the decisions per second one event's
 * object could make with nothing else to do (1,000 / its milliseconds per operation).
 */
export function perOperation(p: ProfileSummary | null, count: number) {
  if (!p || count === 0) return null;
  const per = (ms: number) => Math.round((ms / count) * 1000) / 1000;
  const objectMs = p.sides.object_ms / count;
  return {
    count,
    busy_ms: per(p.busy_ms),
    object_ms: per(p.sides.object_ms),
    worker_ms: per(p.sides.worker_ms),
    runtime_ms: per(p.sides.runtime_ms),
    object_decisions_per_second: objectMs > 0 ? Math.round(1000 / objectMs) : null,
  };
}
