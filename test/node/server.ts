/**
 * `npm start` as a newcomer runs it, for the Node-side tests: its own script (src/cli/start.ts:
 * migrations, fonts, then wrangler dev) on a fresh temporary `--persist-to` directory and a free
 * port of 127.0.0.1, in its own process group so that `stop()` ends wrangler and workerd too.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "..", "..");

/** How long a start may take on a busy two-core machine (migrations, fonts, wrangler's build). */
export const START_TIMEOUT_MS = 300_000;

export type Server = {
  base: string;
  state: string;
  stop(): void;
  /** The last 30 lines of its output. */
  output(): string;
  /** Its whole output so far (stdout and stderr, the last 200,000 characters). */
  log(): string;
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Runs one of the project's Node scripts (what its npm script runs) and captures its output. */
export function runScript(
  script: string,
  args: string[],
  opts: { cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, script), ...args], { cwd: opts.cwd ?? root });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Starts the server (`args`: more flags of npm start) and resolves once it answers HTTP. */
export async function startServer(statePrefix: string, args: string[] = []): Promise<Server> {
  const state = mkdtempSync(path.join(tmpdir(), statePrefix));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let log = "";
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(root, "src/cli/start.ts"), "--port", String(port), "--persist-to", state, ...args],
    { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (d) => (log = (log + d).slice(-200_000)));
  let exited = false;
  child.once("exit", () => (exited = true));
  const stop = () => {
    if (child.pid !== undefined && !exited) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        /* already gone */
      }
    }
    rmSync(state, { recursive: true, force: true });
  };
  const output = () => log.trimEnd().split("\n").slice(-30).join("\n");
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited) {
      stop();
      throw new Error(`npm start ended before answering:\n${output()}`);
    }
    try {
      await (await fetch(`${base}/api/v1/organizers/`)).arrayBuffer();
      return { base, state, stop, output, log: () => log };
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      stop();
      throw new Error(`npm start did not answer within ${START_TIMEOUT_MS / 1000} s:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}
