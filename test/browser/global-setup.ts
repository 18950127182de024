/** Before the first file of a run: an empty screenshot directory (browser.ts). */
import { clearScreenshots } from "./browser.ts";

export default function setup(): void {
  clearScreenshots();
}
