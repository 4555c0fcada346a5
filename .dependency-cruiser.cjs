// The folders' roles (docs/architecture.md, and the layering of the design card), as rules that
// `npm test` checks through scripts/check-dependencies.mjs. A rule names what it forbids and its
// comment says why; the check fails on any violation. The same script also refuses import cycles.

/** Node's built-in modules that reach outside the process (files, network, processes, the host). */
const IO_CORE_MODULES = "^(fs|net|http|https|http2|tls|dgram|dns|child_process|cluster|worker_threads|readline|repl|inspector|os|process|v8|vm)(/|$)";

/** The projector runtime: what runs read models (apps/projector, apps/cli), not what answers requests. */
const PROJECTOR_RUNTIME = "^projections/_runtime/(runner|replay|projector-locks|batch-reader|apply-batch|fact-source)\\.ts$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "nats-only-in-streams",
      severity: "error",
      comment:
        "Only streams/ talks to NATS: everything else appends, reads and reserves through streams/ functions, so a client " +
        "upgrade or a change of log touches one folder. Need something new from NATS? Add a function to streams/.",
      from: { pathNot: "^streams/" },
      to: { path: ["(^|/)node_modules/@nats-io/", "^@nats-io/"] },
    },
    {
      name: "nats-handles-private-to-streams",
      severity: "error",
      comment:
        "The raw NATS handles behind a Log (nc, js, jsm) are for streams/ alone; elsewhere use the closed set of " +
        "functions streams/ exports (append, readFrom, streamHead, lastSequenceOn, maxPayload, reservations, runDurable...).",
      from: { pathNot: "^streams/" },
      to: { path: "^streams/nats-handles\\.ts$" },
    },
    {
      name: "domain-imports-only-domain-and-zod",
      severity: "error",
      comment:
        "domain/ is pure decisions and rules: it imports itself, zod and Node's built-ins that do no I/O, " +
        "never a driver, a web framework or a logger (design card: 'nothing but zod and itself').",
      from: { path: "^domain/", pathNot: "\\.test\\.ts$" },
      to: { pathNot: ["^domain/", "(^|/)node_modules/zod/"], dependencyTypesNot: ["core"] },
    },
    {
      name: "domain-does-no-io",
      severity: "error",
      comment: "domain/ does no I/O: files, network, processes and the host come in through apps/, as arguments.",
      from: { path: "^domain/" },
      to: { dependencyTypes: ["core"], path: IO_CORE_MODULES },
    },
    {
      name: "domain-depends-on-no-layer",
      severity: "error",
      comment: "domain/ is the innermost layer: projections/, streams/ and apps/ depend on it, never the other way round.",
      from: { path: "^domain/" },
      to: { path: "^(apps|projections|streams|bench)/" },
    },
    {
      name: "projections-not-streams-or-apps",
      severity: "error",
      comment:
        "projections/ builds and reads Postgres and knows the log only through the FactSource port " +
        "(projections/_runtime/fact-source.ts); apps/ wires streams/ into it.",
      from: { path: "^projections/" },
      to: { path: "^(streams|apps)/" },
    },
    {
      name: "streams-not-projections-or-apps",
      severity: "error",
      comment: "streams/ is the event log and nothing else: it knows neither read models nor the apps that use it.",
      from: { path: "^streams/" },
      to: { path: "^(projections|apps)/" },
    },
    {
      name: "api-not-projector-runtime",
      severity: "error",
      comment:
        "The API answers requests from read models; running, replaying and locking projectors belongs to " +
        "apps/projector and apps/cli (apps/runtime.ts wires them when one process runs every part).",
      from: { path: "^apps/api/" },
      to: { path: PROJECTOR_RUNTIME },
    },
    {
      name: "sql-only-in-projections",
      severity: "error",
      comment:
        "SQL is written only in projections/ (queries beside the tables they read): apps/ and streams/ import " +
        "slonik and pg for their types alone and call projections/ functions for every statement.",
      from: { path: "^(apps|streams)/" },
      to: { path: ["(^|/)node_modules/(slonik|@slonik/[^/]+|pg)/", "^projections/_runtime/sql\\.ts$"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "app-parts-apart",
      severity: "error",
      comment:
        "apps/api, apps/worker and apps/projector each start alone, so none imports another; they meet in the " +
        "composition root (apps/runtime.ts). What they share (apps/commands, apps/storage) imports none of them. " +
        "apps/cli, the operator's tool, may use any of them.",
      from: { path: "^apps/(api|worker|projector|commands|storage)/" },
      to: { path: "^apps/(api|worker|projector|cli)/", pathNot: "^apps/$1/" },
    },
    {
      name: "dashboard-only-through-http",
      severity: "error",
      comment:
        "The dashboard runs in the browser and reads the service only over its public HTTP API (typed by the " +
        "generated OpenAPI types in its own folder): it imports its own files and npm packages, nothing else of " +
        "the repository, and no service code imports it.",
      from: { path: "^apps/dashboard/" },
      to: { path: "^(apps|domain|projections|streams|test|bench|scripts)/", pathNot: "^apps/dashboard/" },
    },
    {
      name: "service-not-dashboard",
      severity: "error",
      comment: "The service serves the dashboard's built files; it never imports its source.",
      from: { path: "^(apps|domain|projections|streams)/", pathNot: "^apps/dashboard/" },
      to: { path: "^apps/dashboard/" },
    },
    {
      name: "no-tests-in-production-code",
      severity: "error",
      comment: "The service never loads test helpers or benchmarks; only tests and benchmarks do.",
      from: { path: "^(apps|domain|projections|streams)/", pathNot: "\\.test\\.ts$" },
      to: { path: "^(test|bench)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^dist/" },
    // Type-only imports count: a layer that needs another's types depends on it all the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
