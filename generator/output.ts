/**
 * Shared output helpers: one in-memory ts-morph project and the fixed
 * formatting settings. Every emitter ends in `render()`, so all generated files look the same and
 * rerunning the generator is byte-identical.
 */
import { IndentationText, NewLineKind, Node, Project, QuoteKind, type SourceFile } from "ts-morph";
import { banner } from "./banner";

const project = new Project({
  useInMemoryFileSystem: true,
  skipLoadingLibFiles: true,
  manipulationSettings: {
    indentationText: IndentationText.TwoSpaces,
    newLineKind: NewLineKind.LineFeed,
    quoteKind: QuoteKind.Double,
    useTrailingCommas: true,
  },
});

let serial = 0;

/**
 * A fresh, empty source file to build one output in. Each gets a path of its own: re-creating a
 * removed path in the same project can reuse stale formatting state and corrupt the text.
 */
export function newSourceFile(name: string, text = ""): SourceFile {
  serial += 1;
  return project.createSourceFile(`/out/${serial}/${name}`, text);
}

/** Formats with fixed settings, prepends the banner and returns the file text (LF, one final newline). */
export function render(file: SourceFile, emitter: string): string {
  file.formatText({
    indentSize: 2,
    tabSize: 2,
    convertTabsToSpaces: true,
    newLineCharacter: "\n",
    insertSpaceAfterCommaDelimiter: true,
    insertSpaceAfterSemicolonInForStatements: true,
    insertSpaceBeforeAndAfterBinaryOperators: true,
    insertSpaceAfterKeywordsInControlFlowStatements: true,
    insertSpaceAfterFunctionKeywordForAnonymousFunctions: true,
    insertSpaceAfterOpeningAndBeforeClosingNonemptyBraces: true,
    placeOpenBraceOnNewLineForFunctions: false,
    placeOpenBraceOnNewLineForControlBlocks: false,
    ensureNewLineAtEndOfFile: true,
  });
  // Fixed layout: one blank line between top-level statements, none between consecutive imports.
  let body = "";
  let previousWasImport = false;
  for (const statement of file.getStatements()) {
    const isImport = Node.isImportDeclaration(statement);
    const text = statement
      .getFullText()
      .replace(/[ \t]+$/gm, "")
      .trim();
    body += body === "" ? text : `${isImport && previousWasImport ? "\n" : "\n\n"}${text}`;
    previousWasImport = isImport;
  }
  project.removeSourceFile(file);
  return `${banner(emitter)}\n\n${body}\n`;
}

/** A JSDoc-safe text: no comment terminators, trimmed lines. */
export function docText(text: string): string {
  return text
    .replace(/\*\//g, "*\\/")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();
}

/** First sentence of a description (up to the first ". " or blank line). */
export function firstSentence(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const paragraph = text
    .trim()
    .split(/\n\s*\n/)[0]
    .replace(/\s+/g, " ");
  const match = /^(.+?[.!?])(\s|$)/.exec(paragraph);
  return (match ? match[1] : paragraph).trim();
}

/** `rate_limit_exceeded` → `RateLimitExceeded`. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join("");
}
