// Bun (npm bun): the smoke with bun:sqlite (better-sqlite3 does not load in Bun).
import { defineSmokeSuite } from "./smoke";

defineSmokeSuite("Bun", "bun", (_bin, script) => [script], "bun:sqlite");
