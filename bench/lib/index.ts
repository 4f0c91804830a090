// Shared bench helpers: tables on stdout, JSON results under bench/results/.
export { formatTable, printTable, type Cell, type Row } from "./table";
export { resultsDir, writeResult } from "./results";
export { percentile, runPool } from "./stats";
export { runWhenDirect } from "./direct";
export { controlClient, type ControlClient } from "./emulator-control";
