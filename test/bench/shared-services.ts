/**
 * One server for several test files (the browser tests set SHARED_SERVICES, a directory, in
 * test/browser/global-setup.ts): the files that start the service with the same server options
 * share the first one's server; every later file gets an organizer of its own, made with the
 * operator command as at a start. `stop()` leaves a shared server running: each start writes
 * its process group and state directory into SHARED_SERVICES, and the global setup's teardown
 * ends them (`endSharedServices`) once the last file is done.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Organizer, Service, StartOptions } from "./server.ts";

type Shared = { service: Promise<Service>; slugs: Set<string> };

/** By the options that shape the server (not the organizer, the log function or the directory's name). */
const shared = new Map<string, Shared>();

/** A free slug of the shared server: `slug`, else `slug-2`, `slug-3`, ... */
function freeSlug(slugs: Set<string>, slug: string): string {
  let free = slug;
  for (let n = 2; slugs.has(free); n++) free = `${slug}-${n}`;
  slugs.add(free);
  return free;
}

export async function startShared(
  opts: StartOptions,
  startOwn: (opts: StartOptions) => Promise<Service>,
  createOrganizer: (
    stateDir: string,
    org: { slug: string; name: string; group?: number },
    config?: string,
  ) => Promise<Organizer>,
): Promise<Service> {
  const registry = process.env.SHARED_SERVICES!;
  const { port, keep, countRoundTrips, vars, logLevel, config } = opts;
  const key = JSON.stringify({ port, keep, countRoundTrips, vars, logLevel, config });
  const org = opts.organizer ?? { slug: "bench", name: "Benchmark Org" };
  const entry = shared.get(key);
  if (!entry) {
    const onLaunch = (pid: number, stateDir: string) =>
      writeFileSync(path.join(registry, `${pid}.json`), JSON.stringify({ pid, stateDir, keep: keep === true }));
    const started: Shared = { service: startOwn({ ...opts, onLaunch }), slugs: new Set([org.slug]) };
    shared.set(key, started);
    // a start that failed is not shared: the next file tries again
    started.service.catch(() => shared.delete(key));
    return { ...(await started.service), stop: async () => {} };
  }
  const service = await entry.service;
  opts.log(`shares the server of ${service.base} (state directory ${service.stateDir})`);
  const own = await createOrganizer(
    service.stateDir,
    { slug: freeSlug(entry.slugs, org.slug), name: org.name, group: opts.group },
    config,
  );
  return {
    ...service,
    ...own,
    restart: () => Promise.reject(new Error("a shared server is not restarted: other files use it")),
    stop: async () => {},
  };
}

/** Ends every shared server the files started (SIGTERM, SIGKILL after 5 s) and removes its state. */
export async function endSharedServices(registry: string): Promise<void> {
  const started = readdirSync(registry).map(
    (f) => JSON.parse(readFileSync(path.join(registry, f), "utf8")) as { pid: number; stateDir: string; keep: boolean },
  );
  const alive = (pid: number) => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const { pid } of started) if (alive(pid)) process.kill(-pid, "SIGTERM");
  const deadline = Date.now() + 5000;
  while (started.some(({ pid }) => alive(pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const { pid } of started) if (alive(pid)) process.kill(-pid, "SIGKILL");
  for (const { stateDir, keep } of started) if (!keep) rmSync(stateDir, { recursive: true, force: true });
  rmSync(registry, { recursive: true, force: true });
}
