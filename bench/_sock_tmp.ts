import { runSocketOverheadBench, reportSocketOverheadBench } from "/work/wt/runner/bench/overhead-socket";
const r = await runSocketOverheadBench({ requests: Number(process.argv[2] ?? 3000) });
await reportSocketOverheadBench(r);
