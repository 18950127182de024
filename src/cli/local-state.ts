/**
 * Which local state (D1, R2, Durable Objects, queues) a command uses, and whether a server runs
 * on it. `npm start` and the operator command each take `--persist-to`; given to one and not to
 * the other, they use two databases, and a token the command prints is refused by the server.
 * So `npm start` records its address in the state directory while it runs (`server.json`), and
 * the operator command says which state it used, warns when no server of that state answers,
 * and names the other local states it finds in the project.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { projectRoot, wranglerConfigPath } from "./wrangler.ts";

/** The state directory wrangler uses: `--persist-to` (relative to the project), else `.wrangler/state` beside the configuration. */
export function localStateDir(persistTo: string | undefined): string {
  return persistTo
    ? path.resolve(projectRoot, persistTo)
    : path.join(path.dirname(wranglerConfigPath()), ".wrangler", "state");
}

/** How the state directory is named on a command line (relative to the project when inside it). */
export function shownPath(dir: string): string {
  const relative = path.relative(projectRoot, dir);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : dir;
}

type ServerRecord = { url: string; pid: number };

const RECORD = "server.json";

/** Called by `npm start` once it serves the state: where it answers. */
export function recordServer(stateDir: string, record: ServerRecord): void {
  writeFileSync(path.join(stateDir, RECORD), `${JSON.stringify(record)}\n`);
}

/** Called by `npm start` when it ends (the record of another process is left alone). */
export function forgetServer(stateDir: string, pid: number): void {
  if (recordedServer(stateDir)?.pid === pid) rmSync(path.join(stateDir, RECORD), { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The `npm start` serving this state directory, if its process still runs. */
export function recordedServer(stateDir: string): ServerRecord | null {
  try {
    const record = JSON.parse(readFileSync(path.join(stateDir, RECORD), "utf8")) as ServerRecord;
    return typeof record.url === "string" && Number.isInteger(record.pid) && alive(record.pid) ? record : null;
  } catch {
    return null;
  }
}

/** Whether a local state holds a D1 database (wrangler keeps it under `v3/d1`). */
function holdsDatabase(dir: string): boolean {
  return existsSync(path.join(dir, "v3", "d1"));
}

const SKIPPED = new Set(["node_modules", ".git", "v3"]);

/**
 * The directories under `root` (four levels deep at most: `.wrangler/state`, `state`,
 * `tmp/run-1/state`) that hold a local database, except `stateDir`.
 */
export function otherLocalStates(root: string, stateDir: string): string[] {
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    if (holdsDatabase(dir)) {
      if (path.resolve(dir) !== path.resolve(stateDir)) found.push(dir);
      return;
    }
    if (depth === 4) return;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !SKIPPED.has(entry.name)) visit(path.join(dir, entry.name), depth + 1);
    }
  };
  visit(root, 0);
  return found.sort();
}

/** The `npm start` command line that serves a state directory. */
export function startCommand(dir: string): string {
  return path.resolve(dir) === path.resolve(localStateDir(undefined))
    ? "npm start"
    : `npm start -- --persist-to ${shownPath(dir)}`;
}

async function answers(url: string, pathname: string, token?: string): Promise<number | null> {
  try {
    const res = await fetch(new URL(pathname, url), {
      headers: token ? { Authorization: `Token ${token}` } : {},
      signal: AbortSignal.timeout(5000),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return null;
  }
}

/**
 * What the operator command tells on stderr about the local state it used: the directory, whether
 * the server of this state answers (with `check`: and accepts the new token), and — only when no
 * server of this state serves it — the other local states of the project, where the server in use
 * probably runs. A server of this state that answers makes the others irrelevant, so they are not
 * mentioned then (no warning beside "accepts the token").
 */
export async function reportLocalState(
  stateDir: string,
  write: (line: string) => void,
  check?: { organizer: string; token: string },
): Promise<void> {
  const isDefault = startCommand(stateDir) === "npm start";
  write(`Local state: ${shownPath(stateDir)}${isDefault ? " (the default, without --persist-to)" : ""}`);
  const server = recordedServer(stateDir);
  const status =
    server && check
      ? await answers(server.url, `/api/v1/organizers/${encodeURIComponent(check.organizer)}/`, check.token)
      : null;
  const served = server !== null && (check ? status === 200 : true);
  if (!served) {
    for (const other of otherLocalStates(path.dirname(wranglerConfigPath()), stateDir)) {
      const otherServer = recordedServer(other);
      write(
        `warning: another local state exists: ${shownPath(other)}` +
          `${otherServer ? ` (npm start serves it at ${otherServer.url})` : ""}; \`${startCommand(other)}\` ` +
          "would not see what this command writes: give the server and this command the same --persist-to.",
      );
    }
  }
  if (!check) return;
  if (server && status === 200) {
    write(`The server of this state (npm start at ${server.url}) accepts the token.`);
  } else if (server && status !== null) {
    write(`warning: the server of this state at ${server.url} answered ${status} to the new token.`);
  } else {
    write(
      `warning: no server of this state answers${server ? ` (npm start at ${server.url} is not ready yet)` : ""}; ` +
        `serve it with \`${startCommand(stateDir)}\` (a server on another state refuses the token).`,
    );
  }
}
