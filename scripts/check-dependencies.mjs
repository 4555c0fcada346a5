// Part of `npm test`: checks every import against the rules in .dependency-cruiser.cjs, then looks
// for import cycles, and exits non-zero on any violation. It calls dependency-cruiser's API because
// its command line refuses to start on Node 20 (its engines field names 22 and later); the API
// itself runs fine here.
import { cruise, format } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

const CHECKED_DIRS = ["apps", "domain", "projections", "streams", "test", "bench"];

const CYCLE_WHY =
  "A cycle of imports makes load order matter and hides which module owns what: break it by moving the shared part " +
  "down a layer. Type-only imports do not count (they are erased before the code runs), so every part may take the " +
  "deps type (apps/api/deps.ts) that names the parts.";

/**
 * The groups of modules that import each other in a circle at runtime (Tarjan's strongly connected
 * components over the imports that are not type-only). dependency-cruiser's own `circular` rule
 * records one cycle per import whatever its kinds of imports, so a cycle made of runtime imports
 * could hide behind one that passes through a type-only import; this search cannot miss it.
 */
function runtimeCycles(modules) {
  const imports = new Map(
    modules.map((module) => [module.source, module.dependencies.filter((dependency) => !dependency.dependencyTypes.includes("type-only")).map((dependency) => dependency.resolved)]),
  );
  const order = new Map();
  const lowest = new Map();
  const stack = [];
  const cycles = [];
  const visit = (module) => {
    order.set(module, order.size);
    lowest.set(module, order.get(module));
    stack.push(module);
    for (const next of imports.get(module) ?? []) {
      if (!order.has(next)) visit(next);
      if (stack.includes(next)) lowest.set(module, Math.min(lowest.get(module), lowest.get(next)));
    }
    if (lowest.get(module) !== order.get(module)) return;
    const component = stack.splice(stack.indexOf(module));
    if (component.length > 1 || imports.get(module)?.includes(module)) cycles.push(shortestCircle(imports, new Set(component), module));
  };
  for (const module of imports.keys()) if (!order.has(module)) visit(module);
  return cycles;
}

/** The shortest chain of imports inside `component` that leads from `start` back to it, `start` first. */
function shortestCircle(imports, component, start) {
  const cameFrom = new Map();
  const queue = [start];
  for (const module of queue) {
    for (const next of imports.get(module) ?? []) {
      if (!component.has(next) || cameFrom.has(next)) continue;
      cameFrom.set(next, module);
      if (next === start) {
        const path = [];
        for (let step = module; step !== start; step = cameFrom.get(step)) path.unshift(step);
        return [start, ...path];
      }
      queue.push(next);
    }
  }
  return [...component];
}

const options = await extractDepcruiseOptions("./.dependency-cruiser.cjs");
const { output: cruised } = await cruise(CHECKED_DIRS, { ...options, validate: true }, {}, { tsConfig: extractTSConfig(options.tsConfig.fileName) });
const report = await format(cruised, { outputType: "err-long" });
process.stdout.write(report.output);

const cycles = runtimeCycles(cruised.modules);
for (const cycle of cycles) process.stdout.write(`\n  error no-circular: ${[...cycle, cycle[0]].join(" → ")}\n    ${CYCLE_WHY}\n`);
if (cycles.length > 0) process.stdout.write(`\nx ${cycles.length} import cycle(s)\n`);

process.exitCode = report.exitCode + cycles.length;
