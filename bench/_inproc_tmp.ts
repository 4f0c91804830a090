import { runOverheadBench, reportOverheadBench } from "/work/wt/runner/bench/overhead";
const r = await runOverheadBench({ requests: Number(process.argv[2] ?? 2000), rounds: 1 });
await reportOverheadBench(r);
