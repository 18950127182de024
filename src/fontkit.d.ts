/** The part of fontkit (v2) this project uses: pdf-lib registers it to embed and subset fonts. */
declare module "fontkit" {
  import type { PDFDocument } from "@cantoo/pdf-lib";
  type Fontkit = Parameters<PDFDocument["registerFontkit"]>[0];
  export const create: Fontkit["create"];
}
