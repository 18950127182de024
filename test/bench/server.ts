/**
 * The service started the way a newcomer starts it, but locally only and into a fresh
 * temporary state directory: `npm start`'s own script (src/cli/start.ts: migrations applied,
 * then `wrangler dev`) with `--persist-to` that directory and a free port of 127.0.0.1, and an
 * organizer created with the operator command (`npm run admin -- create-organizer`) while
 * wrangler boots. Shared by the benchmark (`npm run bench`, with the D1 round-trip counting of
 * the debugging aid on) and the browser tests (`npm run test:browser`, without it). `stop()` ends the
 * server and its children (wrangler, workerd) and removes the state directory; `restart()` ends
 * them and starts them again on the same state (the large-event scenario restarts the event
 * objects that way).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { applyMigrations, projectRoot, useWranglerConfig } from "../../src/cli/wrangler.ts";
import { startShared } from "./shared-services.ts";

export type Service = {
  base: string;
  stateDir: string;
  organizer: string;
  token: string;
  /** The id of the organizer's team "Administrators" (made by the operator command). */
  team: number;
  /** The port of wrangler's inspector (CPU profiles, test/bench/profile.ts); a restart changes it. */
  inspectorPort(): number;
  /** The last lines wrangler wrote (for error messages). */
  logTail(lines?: number): string;
  /**
   * Stops the server (the state directory stays), runs `between` (for example a change to the
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

/** Runs one of the project's Node scripts (what its npm script runs) and captures its output. */
export function runNode(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(projectRoot, script), ...args], {
      cwd: projectRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

export type Organizer = { organizer: string; token: string; team: number };

/**
 * Makes an organizer with the operator command (`npm run admin -- create-organizer`) in the
 * local state `stateDir`, in `group` when given, with the configuration file `config` when given.
 */
export async function createOrganizer(
  stateDir: string,
  org: { slug: string; name: string; group?: number },
  config?: string,
): Promise<Organizer> {
  const admin = await runNode("src/cli/admin.ts", [
    "create-organizer",
    "--slug",
    org.slug,
    "--name",
    org.name,
    ...(org.group === undefined ? [] : ["--group", String(org.group)]),
    ...(config === undefined ? [] : ["--config", config]),
    "--persist-to",
    stateDir,
  ]);
  if (admin.code !== 0) throw new Error(`the operator command failed:\n${admin.stderr}`);
  return JSON.parse(admin.stdout.trim().split("\n").pop()!) as Organizer;
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
  /** The organizer the operator command creates (default: "bench", "Benchmark Org"). */
  organizer?: { slug: string; name: string };
  /**
   * The D1 round-trip counting of the debugging aid (`--var DEBUG_D1_ROUND_TRIPS:1`): on
   * unless false (the benchmark reads it; the browser tests run without it, as `npm start` does).
   */
  countRoundTrips?: boolean;
  /** Name prefix of the temporary state directory. */
  stateDirPrefix?: string;
  /** Deployment variables set for this run (`--var NAME:value`), e.g. STRIPE_API_BASE of the card payment tests. */
  vars?: Record<string, string>;
  /** wrangler's `--log-level` (default `warn`); `log` also writes the Worker's own log lines to the log file. */
  logLevel?: "log" | "warn";
  /**
   * Another wrangler configuration file (in the project's folder, so its relative paths hold),
   * e.g. with more organizer groups: its databases are migrated, then `wrangler dev --config` it.
   */
  config?: string;
  /** The organizer group of the organizer made at the start (default: the emptiest). */
  group?: number;
  log: (line: string) => void;
  /** Called with the process group of each start (npm start's script), for a clean-up elsewhere. */
  onLaunch?: (pid: number, stateDir: string) => void;
};

/**
 * Sets up and starts the service. With SHARED_SERVICES set (the browser tests), files that start
 * it with the same server options share one server, each with an organizer of its own
 * (./shared-services.ts).
 */
export function startService(opts: StartOptions): Promise<Service> {
  return process.env.SHARED_SERVICES ? startShared(opts, startOwnService, createOrganizer) : startOwnService(opts);
}

/** Sets up and starts the service; on a failure everything started so far is ended again. */
async function startOwnService(opts: StartOptions): Promise<Service> {
  const stateDir = mkdtempSync(path.join(tmpdir(), opts.stateDirPrefix ?? "ticketing-bench-"));
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

  /**
   * Starts `npm start`'s script on the state directory. Resolves once start.ts has applied the
   * migrations, with a function that waits until the server answers `token`.
   */
  let inspectorPort = 0;
  const launch = async (port: number) => {
    inspectorPort = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const out = createWriteStream(logFile, { flags: "a" });
    if (opts.config) {
      // start.ts migrates the databases of wrangler.toml; those only the other file has, here
      useWranglerConfig(opts.config);
      try {
        await applyMigrations({ remote: false, persistTo: stateDir });
      } finally {
        useWranglerConfig(null);
      }
    }
    // `npm start -- ...`: start.ts applies the migrations, then runs wrangler dev (which
    // inherits its output streams); its own process group, so stop() ends all of it.
    const proc = spawn(
      process.execPath,
      [
        path.join(projectRoot, "src/cli/start.ts"),
        "--local",
        "--ip",
        "127.0.0.1",
        "--port",
        String(port),
        "--inspector-port",
        String(inspectorPort),
        "--persist-to",
        stateDir,
        "--show-interactive-dev-session=false",
        "--log-level",
        opts.logLevel ?? "warn",
        ...(opts.config ? ["--config", opts.config] : []),
        ...(opts.countRoundTrips === false ? [] : ["--var", "DEBUG_D1_ROUND_TRIPS:1"]),
        ...Object.entries(opts.vars ?? {}).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
      ],
      { cwd: projectRoot, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    child = proc;
    if (proc.pid !== undefined) opts.onLaunch?.(proc.pid, stateDir);
    let exitedEarly = false;
    proc.once("exit", () => (exitedEarly = true));
    const migrated = new Promise<void>((resolve, reject) => {
      let seen = "";
      const watch = (d: Buffer) => {
        seen += d.toString();
        if (/Database migrations applied\.|Databases? (?:is|are) up to date\./.test(seen)) {
          proc.stderr!.off("data", watch);
          resolve();
        }
      };
      proc.stderr!.on("data", watch);
      proc.once("exit", () => reject(new Error(`npm start ended while applying the migrations:\n${seen.trim()}`)));
    });
    for (const stream of [proc.stdout!, proc.stderr!]) {
      stream.on("data", (d: Buffer) => {
        out.write(d);
        if (opts.verbose) process.stderr.write(d);
      });
    }
    await migrated;
    return async (token: string) => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        if (exitedEarly) throw new Error(`npm start ended before answering:\n${logTail()}`);
        try {
          const res = await fetch(`${base}/api/v1/organizers/`, { headers: { Authorization: `Token ${token}` } });
          await res.arrayBuffer();
          if (res.status === 200) return;
        } catch {
          /* not listening yet */
        }
        if (Date.now() > deadline) throw new Error(`npm start did not answer within 120 s:\n${logTail()}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
  };

  try {
    opts.log(`state directory ${stateDir}`);
    const org = opts.organizer ?? { slug: "bench", name: "Benchmark Org" };
    const port = opts.port ?? (await freePort());
    const answering = await launch(port);
    // The operator command works while the server boots; it starts once start.ts has applied
    // the migrations (both would apply them to the fresh database at once otherwise).
    const { organizer, token, team } = await createOrganizer(stateDir, { ...org, group: opts.group }, opts.config);
    await answering(token);
    const restart = async (between?: () => Promise<void> | void) => {
      if (child) await endGroup(child);
      await between?.();
      await (await launch(port))(token);
    };
    return {
      base: `http://127.0.0.1:${port}`,
      stateDir,
      organizer,
      token,
      team,
      inspectorPort: () => inspectorPort,
      logTail,
      restart,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
