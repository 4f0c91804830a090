import { createMemoryWindowStore } from "../../pacing";
import { describeWindowStore } from "./window-store-conformance";

describeWindowStore("memory", async () => ({ store: createMemoryWindowStore() }));
