/** The part of fontkit (v2) this project uses: pdf-lib registers it to embed and subset fonts. */
declare module "fontkit" {
  import type { Fontkit } from "@cantoo/pdf-lib";
  export const create: Fontkit["create"];
}
