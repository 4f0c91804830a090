import { createMemoryWindowStore } from "../../pacing/memory-window-store";
import { describeWindowStore } from "./window-store-conformance";

describeWindowStore("memory", async () => ({ store: createMemoryWindowStore() }));
