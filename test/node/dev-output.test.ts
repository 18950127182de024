/**
 * `npm start`'s filter of wrangler dev's output (src/cli/dev-output.ts): the bindings table that
 * wrangler prints again after its dev registry changed is left out, everything else passes.
 * That a started server prints the table once and fetches nothing is held in quickstart.test.ts.
 */
import { describe, expect, it } from "vitest";
import { type DevOutputState, filterDevOutput } from "../../src/cli/dev-output.ts";

const TABLE = [
  "Your Worker has access to the following bindings:\n",
  "Binding                         Resource        Mode\n",
  "env.EVENT_OBJECT (EventObject)  Durable Object  local\n",
  "env.DB (ticketing)              D1 Database     local\n",
  "\n",
];

function run(chunks: string[]): string {
  const state: DevOutputState = { tableSeen: false, afterUpdate: false, skipping: false };
  return chunks.map((c) => filterDevOutput(c, state)).join("");
}

describe("wrangler dev's output under npm start", () => {
  it("the table repeated after a dev registry update is left out, with the update's line", () => {
    const out = run([
      "Using secrets defined in .dev.vars\n",
      ...TABLE,
      "⎔ Starting local server...\n",
      "\u001b[2m⎔ Connection status updated\u001b[22m\n",
      TABLE.join(""),
      "[wrangler:info] Ready on http://127.0.0.1:8787\n",
    ]);
    expect(out).toBe(
      `Using secrets defined in .dev.vars\n${TABLE.join("")}⎔ Starting local server...\n[wrangler:info] Ready on http://127.0.0.1:8787\n`,
    );
  });

  it("a table printed for another reason (the configuration changed) stays; so does a registry update before any table", () => {
    expect(run([...TABLE, "config changed\n", ...TABLE])).toBe(`${TABLE.join("")}config changed\n${TABLE.join("")}`);
    expect(run(["⎔ Connection status updated\n", ...TABLE])).toBe(`⎔ Connection status updated\n${TABLE.join("")}`);
  });
});
