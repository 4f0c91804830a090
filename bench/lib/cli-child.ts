// The operator CLI as a child process, the way an operator runs it: stdout lines are counted, not
// kept (100,000 rows are large), stderr is kept with a bounded tail for the CLI's summary event.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

export interface CliChild {
  code: number | null;
  stderr: string;
  lines: number;
  firstLineMs: number;
  wallMs: number;
}

/** Runs `node <argv…>` in the repository with `env` over this process's environment. */
export function runCliChild(argv: string[], env: NodeJS.ProcessEnv): Promise<CliChild> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, {
      cwd: REPO,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let lines = 0;
    let firstLineMs = Number.NaN;
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      if (lines === 0) firstLineMs = performance.now() - started;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (stderr.length > 4_000_000) stderr = stderr.slice(-1_000_000);
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stderr, lines, firstLineMs, wallMs: performance.now() - started }));
  });
}
