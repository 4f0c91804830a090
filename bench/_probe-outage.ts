import { runOutageBench } from "./outage";
import { pbkdf2 } from "node:crypto";
const mode = process.argv[2] ?? "none";
let stop = false;
if (mode === "pool") {
  const spin = () => { if (!stop) pbkdf2("x", "y", 200000, 32, "sha256", spin); };
  for (let i = 0; i < 8; i++) spin();
}
if (mode === "loop") {
  const spin = () => { if (stop) return; const t = Date.now(); while (Date.now() - t < 3); setImmediate(spin); };
  spin();
}
const r = await runOutageBench();
stop = true;
console.log(mode, JSON.stringify(r));
