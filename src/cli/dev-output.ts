/**
 * Loaded into `wrangler dev` by `npm start` (NODE_OPTIONS `--import`). wrangler prints the bindings
 * table again whenever its dev registry changes ("⎔ Connection status updated"), and it changes at
 * every start: the Worker's own queue consumers register there. The repeat tells nothing new (the
 * Worker binds no other local Worker), so that line and the table after it are left out; every
 * other line passes unchanged. `filterDevOutput` is the pure part (test/node/start.test.ts).
 */

export type DevOutputState = { tableSeen: boolean; afterUpdate: boolean; skipping: boolean };

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes are matched to be ignored
const ANSI = /\u001b\[[0-9;]*m/g;

/** The text to write for one chunk of wrangler's output (lines of a left-out table dropped). */
export function filterDevOutput(text: string, state: DevOutputState): string {
  const lines = text.split(/(?<=\n)/);
  let kept = "";
  for (const line of lines) {
    const plain = line.replace(ANSI, "").trim();
    if (state.skipping) {
      // the table ends with its first blank line, which goes with it
      if (plain === "") state.skipping = false;
      continue;
    }
    if (plain.includes("Connection status updated") && state.tableSeen) {
      state.afterUpdate = true;
      continue;
    }
    if (plain.startsWith("Your Worker has access to the following bindings")) {
      if (state.afterUpdate) {
        state.afterUpdate = false;
        state.skipping = true;
        continue;
      }
      state.tableSeen = true;
    }
    kept += line;
  }
  return kept;
}

/** Installs the filter on this process's stdout (when loaded with --import). */
function install(): void {
  const state: DevOutputState = { tableSeen: false, afterUpdate: false, skipping: false };
  const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== "string" && !(chunk instanceof Uint8Array)) return write(chunk, ...rest);
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return write(filterDevOutput(text, state), ...rest);
  }) as typeof process.stdout.write;
}

if (process.env.TICKETING_DEV_OUTPUT_FILTER === "1") install();
