/**
 * Stripe's form encoding, read back: `a[b][c]=v` nests objects, `a[0][b]=v` makes lists (the
 * way the Stripe SDK encodes request parameters).
 */
type Obj = Record<string, any>;

export function parseForm(text: string): Obj {
  const out: Obj = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const [head, ...rest] = rawKey.split("[");
    const path = [head!, ...rest.map((part) => part.replace(/\]$/, ""))];
    let node: any = out;
    path.forEach((key, i) => {
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(path[i + 1]!);
      const slot = Array.isArray(node) && key === "" ? node.length : key;
      if (last) node[slot] = value;
      else node = node[slot] ??= nextIsIndex ? [] : {};
    });
  }
  return out;
}
