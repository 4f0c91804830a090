import { defineConfig } from "vitest/config";
import SummaryReporter from "./test/support/summary-reporter";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default", new SummaryReporter()],
  },
});
