/**
 * The service under load, started the way `npm start` starts it, but locally only and into
 * a fresh temporary state directory: migrations applied, an organizer created with the
 * operator command, then `wrangler dev` on a free port of 127.0.0.1 with the D1 round-trip
 * counting of the debugging aid on. `stop()` ends wrangler and its children (workerd) and
 * removes the state directory; `restart()` ends them and starts them again on the same state
 * (the large-event scenario restarts the event objects that way).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { applyMigrations, projectRoot, spawnWrangler } from "../../src/cli/wrangler.ts";

export type Service = {
  base: string;
  stateDir: string;
  organizer: string;
  token: string;
  /** The last lines wrangler wrote (for error messages). */
  logTail(lines?: number): string;
  /**
   * Stops wrangler dev (the state directory stays), runs `between` (for example a change to the
   * local state while nothing holds it open) and starts it again on the same port: every
   * isolate and Durable Object starts afresh from its storage.
   */
  restart(between?: () => Promise<void> | void): Promise<void>;
  stop(): Promise<void>;
};

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function runNode(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(projectRoot, script), ...args], { cwd: projectRoot, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Ends a process group: SIGTERM, then SIGKILL after `graceMs`. */
async function endGroup(child: ChildProcess, graceMs = 5000): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    process.kill(-pid, "SIGTERM");
  } catch {
    return; // already gone
  }
  const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref());
  if ((await Promise.race([exited, timer])) === "timeout") {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      /* gone meanwhile */
    }
    await exited;
  }
}

export type StartOptions = {
  port?: number;
  /** Keep the state directory after stopping (its path is printed). */
  keep?: boolean;
  /** Print wrangler's output as it comes. */
  verbose?: boolean;
  log: (line: string) => void;
};

/** Sets up and starts the service; on a failure everything started so far is ended again. */
export async function startService(opts: StartOptions): Promise<Service> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "ticketing-bench-"));
  const logFile = path.join(stateDir, "wrangler.log");
  let child: ChildProcess | null = null;
  let stopped: Promise<void> | null = null;

  const logTail = (lines = 30) => {
    try {
      return readFileSync(logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "";
    }
  };
  const stop = () => {
    stopped ??= (async () => {
      if (child) await endGroup(child);
      if (!opts.keep) rmSync(stateDir, { recursive: true, force: true });
    })();
    return stopped;
  };
  // Last resort if this process ends without calling stop() (an uncaught error): no orphans.
  process.once("exit", () => {
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    if (!opts.keep) rmSync(stateDir, { recursive: true, force: true });
  });

  /** Starts wrangler dev on the state directory; the function returned waits until it answers `token`. */
  const launch = async (port: number) => {
    const inspectorPort = await freePort();
    const out = createWriteStream(logFile, { flags: "a" });
    const proc = spawnWrangler(
      [
        "dev",
        "--local",
        "--ip",
        "127.0.0.1",
        "--port",
        String(port),
        "--inspector-port",
        String(inspectorPort),
        "--persist-to",
        stateDir,
        "--var",
        "DEBUG_D1_ROUND_TRIPS:1",
        "--show-interactive-dev-session=false",
        "--log-level",
        "warn",
      ],
      { detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    child = proc;
    for (const stream of [proc.stdout!, proc.stderr!]) {
      stream.on("data", (d: Buffer) => {
        out.write(d);
        if (opts.verbose) process.stderr.write(d);
      });
    }
    let exitedEarly = false;
    proc.once("exit", () => (exitedEarly = true));
    return async (token: string) => {
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 120_000;
      for (;;) {
        if (exitedEarly) throw new Error(`wrangler dev ended before answering:\n${logTail()}`);
        try {
          const res = await fetch(`${base}/api/v1/organizers/`, { headers: { Authorization: `Token ${token}` } });
          await res.arrayBuffer();
          if (res.status === 200) return;
        } catch {
          /* not listening yet */
        }
        if (Date.now() > deadline) throw new Error(`wrangler dev did not answer within 120 s:\n${logTail()}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
  };

  try {
    opts.log(`state directory ${stateDir}`);
    await applyMigrations({ remote: false, persistTo: stateDir });
    // The operator command works while the server runs: both start at once (saves seconds).
    const created = runNode("src/cli/admin.ts", ["create-organizer", "--slug", "bench", "--name", "Benchmark Org", "--persist-to", stateDir]);
    const port = opts.port ?? (await freePort());
    const answering = await launch(port);
    const admin = await created;
    if (admin.code !== 0) throw new Error(`the operator command failed:\n${admin.stderr}`);
    const { organizer, token } = JSON.parse(admin.stdout.trim().split("\n").pop()!) as { organizer: string; token: string };
    await answering(token);
    const restart = async (between?: () => Promise<void> | void) => {
      if (child) await endGroup(child);
      await between?.();
      await (await launch(port))(token);
    };
    return { base: `http://127.0.0.1:${port}`, stateDir, organizer, token, logTail, restart, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
