/**
 * Before the first file of a run: an empty screenshot directory (browser.ts), and the files
 * share servers (SHARED_SERVICES, test/bench/shared-services.ts): one `npm start` for all files
 * that start the service alike. After the last file: those servers ended.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { endSharedServices } from "../bench/shared-services.ts";
import { clearScreenshots } from "./browser.ts";

export default function setup(): () => Promise<void> {
  clearScreenshots();
  const registry = mkdtempSync(path.join(tmpdir(), "ticketing-shared-services-"));
  process.env.SHARED_SERVICES = registry;
  return () => endSharedServices(registry);
}
