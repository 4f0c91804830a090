import { createMemoryJournal } from "../../stores/memory-journal";
import { defineJournalSuite } from "./journal-suite";

// One process, one store: "another connection" is the same instance.
defineJournalSuite("memory", {
  async fresh(options) {
    const journal = createMemoryJournal({ clock: options?.clock });
    return { journal, another: async () => journal };
  },
});
