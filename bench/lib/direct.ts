// Lets a bench file run as a script (`tsx bench/<name>.ts`) while importing it stays side-effect free.

/**
 * When this process was started on bench/<name>.ts (or its built .js), runs `main` and exits 0 when it
 * returns true (every target met), 1 when it returns false or throws.
 */
export function runWhenDirect(name: string, main: () => Promise<boolean>): void {
  const script = process.argv[1] ?? "";
  if (!new RegExp(`(?:^|[\\\\/])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.(?:ts|js|mjs)$`).test(script)) return;
  main().then(
    (pass) => process.exit(pass ? 0 : 1),
    (error: unknown) => {
      process.stderr.write(
        `${name} bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
