import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "domain/**/*.test.ts", "apps/**/*.test.ts", "streams/**/*.test.ts", "projections/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 4,
  },
});
