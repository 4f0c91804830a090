/**
 * `npm run simulate -- [--runs N] [--seed S] [--path P] [--journal memory|sqlite] [--no-shrink] [--json]`
 * builds the simulation into one bundle and runs it on plain node (see bundle.ts for why).
 */
import { runSimulation } from "./bundle";

const { code } = await runSimulation(process.argv.slice(2), { inherit: true });
process.exitCode = code ?? 1;
