/**
 * The layers of src/ and the one direction imports run (docs/architecture.md "Layers"), checked
 * by `npm run lint` (dependency-cruiser). Lowest first; a layer imports only from layers below it
 * and from itself, the folders of the top layer never from each other, and nothing imports the
 * entry files (src/index.ts, src/app.ts).
 */
const LAYERS = [["lib"], ["db"], ["rules"], ["objects"], ["services"], ["http"], ["api", "pages", "jobs", "cli"]];

const layerRules = LAYERS.flatMap((layer, rank) =>
  layer.map((folder) => {
    const above = LAYERS.slice(rank + 1).flat();
    const siblings = layer.filter((f) => f !== folder);
    return {
      name: `${folder}-imports-down`,
      comment: `src/${folder}/ may import only from ${LAYERS.slice(0, rank).flat().join(", ") || "nothing of src/"} and itself`,
      severity: "error",
      from: { path: `^src/${folder}/` },
      to: { path: `^src/(${[...above, ...siblings].join("|")})/|^src/[^/]+\\.ts$` },
    };
  }),
);

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "routes-through-services",
      comment:
        "src/api/ and src/pages/ call services, never db/ (not even its types: a service re-exports the row types a route serializes)",
      severity: "error",
      from: { path: "^src/(api|pages)/" },
      to: { path: "^src/db/" },
    },
    {
      name: "jobs-through-services",
      comment:
        "src/jobs/ (queue consumers, cron) call services; of db/ only the database itself (client.ts: the DB type, createDb)",
      severity: "error",
      from: { path: "^src/jobs/" },
      to: { path: "^src/db/", pathNot: "^src/db/client\\.ts$" },
    },
    {
      name: "sql-stays-in-db",
      comment:
        "drizzle-orm (tables' SQL, its sql tag and operators, even as types) is db/'s: the layers above call db/ functions",
      severity: "error",
      from: {
        path: "^src/",
        pathNot: "^src/db/",
      },
      to: { path: "(^|/)node_modules/drizzle-orm/" },
    },
    {
      name: "no-circular",
      comment: "no two files import each other, directly or around a circle (type imports count)",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "http-framework-stays-in-http",
      comment: "hono is the HTTP layer's: rules, services, objects, db and lib know nothing of HTTP",
      severity: "error",
      from: { path: "^src/(lib|db|rules|objects|services)/" },
      to: { path: "(^|/)node_modules/(hono|@hono|hono-openapi)/" },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      from: { path: "^src/" },
      to: { couldNotResolve: true, pathNot: "^cloudflare:" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    parser: "swc",
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
    exclude: { path: "^src/[^/]+\\.d\\.ts$" },
  },
};
