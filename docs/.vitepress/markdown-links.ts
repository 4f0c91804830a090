/**
 * Guides name operations by operationId in code spans (`domains.renew`); on the site each such span
 * links to that operation in the HTTP reference. Links to the reference page load it as a document
 * (`target="_self"`), because it is a standalone Redoc page and not a VitePress route.
 */
import type { MarkdownRenderer as MarkdownIt } from "vitepress";

export interface OperationLinkOptions {
  base: string;
  /** The reference page for a page of the site (by its path inside docs/): the Russian one for ru/. */
  reference: (relativePath: string) => string;
  operationIds: string[];
}

export function operationLinks(md: MarkdownIt, options: OperationLinkOptions): void {
  const ids = new Set(options.operationIds);
  const href = (id: string, env: { relativePath?: string }) =>
    `${options.base}${options.reference(env.relativePath ?? "")}#operation/${encodeURIComponent(id)}`;
  const code = md.renderer.rules.code_inline!;
  md.renderer.rules.code_inline = (tokens, idx, opts, env, self) => {
    const html = code(tokens, idx, opts, env, self);
    const id = tokens[idx].content;
    // Inside a link already (`[x](…)`) the span stays plain: no nested anchors.
    const inLink =
      tokens.slice(0, idx).filter((t) => t.type === "link_open").length >
      tokens.slice(0, idx).filter((t) => t.type === "link_close").length;
    return ids.has(id) && !inLink
      ? `<a class="operation-link" href="${href(id, env as { relativePath?: string })}" target="_self">${html}</a>`
      : html;
  };
  const link = md.renderer.rules.link_open ?? ((tokens, idx, opts, _env, self) => self.renderToken(tokens, idx, opts));
  md.renderer.rules.link_open = (tokens, idx, opts, env, self) => {
    const target = tokens[idx].attrGet("href") ?? "";
    if (/reference\/(http(\.ru)?\.html|openapi\.yaml)/.test(target)) tokens[idx].attrSet("target", "_self");
    return link(tokens, idx, opts, env, self);
  };
}
