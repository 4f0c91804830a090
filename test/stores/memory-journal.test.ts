import { createMemoryJournal } from "../../stores/memory-journal";
import { defineJournalSuite } from "./journal-suite";

// One process, one store: "another connection" is the same instance.
defineJournalSuite("memory", {
  async fresh() {
    const journal = createMemoryJournal();
    return { journal, another: async () => journal };
  },
});
