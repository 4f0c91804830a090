/**
 * The documentation site (VitePress): English at `/`, Russian under `/ru/`, the same pages in both.
 * Guides come from `docs/guides/` and `docs/ru/guides/`; the SDK and CLI references are generated into
 * `docs/sdk/` and `docs/cli/` (and their `/ru/` copies) by `build.ts` before VitePress runs; the HTTP
 * reference is one Redoc page in `public/reference/`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig, type DefaultTheme } from "vitepress";
import { docsRoot, listGuides, LOCALES, type Locale } from "./guides";
import { operationLinks } from "./markdown-links";
import { contractRules, ruleLinks } from "./rule-links";
import { methodDocs } from "./sdk-methods";

const base = process.env.DOCS_BASE ?? "/";
import { packageVersion } from "./changelog";
import { decorateSpec, readSpec, referenceFile, SPEC_FILE } from "./http-reference";

interface Words {
  label: string;
  guides: string;
  references: string;
  sdkTypes: string;
  cliCommands: string;
  sdk: string;
  methods: string;
  cli: string;
  http: string;
  httpReference: string;
  httpOperations: string;
  spec: string;
  contract: string;
  glossary: string;
  changelog: string;
  repository: string;
  description: string;
}

const WORDS: Record<Locale["key"], Words> = {
  root: {
    label: "English",
    guides: "Guides",
    references: "Reference",
    sdkTypes: "Functions, classes and types",
    cliCommands: "reseller and reseller-emulator",
    sdk: "SDK reference",
    methods: "Client methods",
    cli: "CLI reference",
    http: "HTTP reference",
    httpReference: "Reference (every operation, schema and sample)",
    httpOperations: "Operations (searchable list)",
    spec: "openapi.yaml (download)",
    contract: "Contract",
    glossary: "Glossary",
    changelog: "Changelog",
    repository: "Repository",
    description:
      "TypeScript SDK and emulator for the Reseller REST API: register and renew domains without ever buying twice.",
  },
  ru: {
    label: "Русский",
    guides: "Руководства",
    references: "Справочники",
    sdkTypes: "Функции, классы и типы",
    cliCommands: "reseller и reseller-emulator",
    sdk: "Справочник SDK",
    methods: "Методы клиента",
    cli: "Справочник CLI",
    http: "Справочник HTTP API",
    httpReference: "Справочник (операции, схемы, примеры)",
    httpOperations: "Операции (список с поиском)",
    spec: "openapi.yaml (скачать)",
    contract: "Контракт",
    glossary: "Словарь",
    changelog: "История изменений",
    repository: "Репозиторий",
    description: "TypeScript SDK и эмулятор Reseller REST API: регистрация и продление доменов без повторных покупок.",
  },
};

function codeSpans(title: string): string {
  return title
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/`([^`]+)`/g, "<code>$1</code>");
}

function guidesSidebar(locale: Locale): DefaultTheme.SidebarItem[] {
  const prefix = `/${locale.prefix}guides/`;
  return [
    {
      text: WORDS[locale.key].guides,
      link: prefix,
      // A title's `code` is Markdown: the sidebar shows it as code, not as literal backticks.
      items: listGuides(locale).map((g) => ({ text: codeSpans(g.title), link: `${prefix}${g.slug}` })),
    },
  ];
}

function sdkSidebar(locale: Locale): DefaultTheme.SidebarItem[] {
  const file = join(docsRoot, "sdk/typedoc-sidebar.json");
  const items = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as DefaultTheme.SidebarItem[]) : [];
  const relocate = (list: DefaultTheme.SidebarItem[]): DefaultTheme.SidebarItem[] =>
    list.map((item) => ({
      ...item,
      // About 170 type pages: kinds start folded, so the sidebar stays a table of contents.
      collapsed: true,
      ...(item.link ? { link: `/${locale.prefix}${item.link.replace(/^\//, "").replace(/\.md$/, "")}` } : {}),
      ...(item.items ? { items: relocate(item.items) } : {}),
    }));
  const methods: DefaultTheme.SidebarItem = {
    text: WORDS[locale.key].methods,
    link: `/${locale.prefix}sdk/client/`,
    collapsed: false,
    items: methodDocs().map((r) => ({
      text: `client.${r.resource}`,
      link: `/${locale.prefix}sdk/client/${r.resource}`,
    })),
  };
  return [{ text: WORDS[locale.key].sdk, link: `/${locale.prefix}sdk/`, items: [methods, ...relocate(items)] }];
}

function cliSidebar(locale: Locale): DefaultTheme.SidebarItem[] {
  const dir = join(docsRoot, "cli");
  const bins = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".md") && f !== "index.md") : [];
  return [
    {
      text: WORDS[locale.key].cli,
      link: `/${locale.prefix}cli/`,
      items: bins.map((f) => ({ text: f.slice(0, -3), link: `/${locale.prefix}cli/${f.slice(0, -3)}` })),
    },
  ];
}

function themeConfig(locale: Locale): DefaultTheme.Config {
  const w = WORDS[locale.key];
  const p = `/${locale.prefix}`;
  return {
    nav: [
      { text: w.guides, link: `${p}guides/`, activeMatch: `^${p}guides/` },
      { text: w.contract, link: `${p}contract`, activeMatch: `^${p}contract` },
      { text: w.glossary, link: `${p}glossary`, activeMatch: `^${p}glossary` },
      // The three references share one menu: with a link each, the bar overflowed at 1280 px and pushed
      // the language switch off the screen.
      {
        text: w.references,
        activeMatch: `^${p}(sdk|cli|http)/`,
        items: [
          {
            text: w.sdk,
            items: [
              { text: w.methods, link: `${p}sdk/client/` },
              { text: w.sdkTypes, link: `${p}sdk/` },
            ],
          },
          {
            text: w.http,
            items: [
              // A standalone Redoc page, not a VitePress route: `_self` makes the browser load it.
              { text: w.httpReference, link: `/${referenceFile(locale.key === "ru" ? "ru" : "en")}`, target: "_self" },
              { text: w.httpOperations, link: `${p}http/` },
              { text: w.spec, link: `/${SPEC_FILE}`, target: "_self" },
            ],
          },
          { text: w.cli, items: [{ text: w.cliCommands, link: `${p}cli/` }] },
        ],
      },
      {
        text: `v${VERSION}`,
        items: [
          { text: w.changelog, link: `${p}changelog` },
          { text: w.repository, link: REPOSITORY },
        ],
      },
    ],
    socialLinks: [{ icon: "github", link: REPOSITORY, ariaLabel: w.repository }],
    sidebar: {
      [`${p}guides/`]: guidesSidebar(locale),
      [`${p}sdk/`]: sdkSidebar(locale),
      [`${p}cli/`]: cliSidebar(locale),
      [`${p}http/`]: [{ text: w.httpOperations, link: `${p}http/` }],
    },
    outline: { level: [2, 3], label: locale.key === "ru" ? "На этой странице" : "On this page" },
    ...(locale.key === "ru"
      ? {
          docFooter: { prev: "Назад", next: "Далее" },
          darkModeSwitchLabel: "Тема",
          sidebarMenuLabel: "Меню",
          returnToTopLabel: "Наверх",
          langMenuLabel: "Язык",
          notFound: { title: "Страница не найдена", quote: "", linkText: "На главную" },
        }
      : {}),
  };
}

const operationIds = decorateSpec(readSpec()).operationIds;
const VERSION = packageVersion();
/** The repository page, from package.json (`homepage` without its `#readme`). */
const REPOSITORY = (
  JSON.parse(readFileSync(join(docsRoot, "../package.json"), "utf8")) as { homepage: string }
).homepage.replace(/#.*$/, "");

/**
 * VitePress's local search shows at most 16 results (a literal in its search box component); a reader
 * searching "Idempotency-Key" needs more than that. The build fails if the literal is not found.
 */
function moreSearchResults() {
  return {
    name: "reseller-api:more-search-results",
    enforce: "pre" as const,
    transform(code: string, id: string) {
      // The .vue file itself, before the Vue plugin splits it into ?vue&type=… parts.
      if (!id.endsWith("/VPLocalSearchBox.vue")) return undefined;
      if (!code.includes(".slice(0, 16)"))
        throw new Error(
          "VitePress's search box no longer caps results with .slice(0, 16): update moreSearchResults().",
        );
      return code.replace(".slice(0, 16)", `.slice(0, ${SEARCH_RESULTS})`);
    },
  };
}

/** How many search results the search box lists. */
export const SEARCH_RESULTS = 60;

export default defineConfig({
  base,
  title: "reseller-api",
  cleanUrls: false,
  // The generated SDK pages and the repository-facing README are not site pages of their own.
  srcExclude: ["README.md", "sdk/typedoc-sidebar.json"],
  rewrites: { "guides/README.md": "guides/index.md", "ru/guides/README.md": "ru/guides/index.md" },
  // The Redoc page is checked by the browser tests (every link and `#operation/…` anchor), not here.
  ignoreDeadLinks: [/reference\/http(\.ru)?\.html/, /reference\/openapi\.yaml/],
  lastUpdated: false,
  // The local search index and the SDK pages make big chunks by design; the site is served statically.
  vite: { build: { chunkSizeWarningLimit: 4000 }, plugins: [moreSearchResults()] },
  head: [["link", { rel: "icon", href: "data:," }]],
  markdown: {
    config: (md) => {
      operationLinks(md, {
        base,
        reference: (relativePath) => referenceFile(relativePath.startsWith("ru/") ? "ru" : "en"),
        operationIds,
      });
      ruleLinks(md, { base, rules: contractRules(docsRoot) });
    },
  },
  locales: Object.fromEntries(
    LOCALES.map((locale) => [
      locale.key,
      {
        label: WORDS[locale.key].label,
        lang: locale.lang,
        link: `/${locale.prefix}`,
        description: WORDS[locale.key].description,
        themeConfig: themeConfig(locale),
      },
    ]),
  ),
  themeConfig: {
    // Search (J1): guides first, then the contract and the HTTP operations, then SDK and CLI pages.
    // Read by the page footer (theme/PageFooter.vue).
    ...({ packageVersion: VERSION, repository: REPOSITORY } as object),
    search: {
      provider: "local",
      options: {
        // Serialised into the page: the function must not refer to anything outside itself.
        miniSearch: {
          searchOptions: {
            boostDocument: (id: string) =>
              /^\/(ru\/)?guides\//.test(id)
                ? 8
                : /^\/(ru\/)?(contract|http\/)/.test(id)
                  ? 4
                  : /^\/(ru\/)?sdk\/client\//.test(id)
                    ? 2
                    : 1,
          },
        },
        locales: {
          ru: {
            translations: {
              button: { buttonText: "Поиск", buttonAriaLabel: "Поиск" },
              modal: {
                displayDetails: "Подробнее",
                resetButtonTitle: "Сбросить",
                backButtonTitle: "Закрыть",
                noResultsText: "Ничего не найдено",
                footer: { selectText: "выбрать", navigateText: "перейти", closeText: "закрыть" },
              },
            },
          },
        },
      },
    },
  },
});
