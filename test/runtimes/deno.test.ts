// Deno (npm deno): the smoke with node:sqlite (better-sqlite3, a Node addon, does not load in Deno).
import { defineSmokeSuite } from "./smoke";

defineSmokeSuite("Deno", "deno", (_bin, script) => ["run", "--allow-all", "--no-prompt", script], "node:sqlite");
