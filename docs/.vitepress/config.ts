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
import { methodDocs } from "./sdk-methods";

const base = process.env.DOCS_BASE ?? "/";
import { decorateSpec, HTTP_REFERENCE_FILE as HTTP_REFERENCE, readSpec } from "./http-reference";

interface Words {
  label: string;
  guides: string;
  sdk: string;
  methods: string;
  cli: string;
  http: string;
  description: string;
}

const WORDS: Record<Locale["key"], Words> = {
  root: {
    label: "English",
    guides: "Guides",
    sdk: "SDK reference",
    methods: "Client methods",
    cli: "CLI reference",
    http: "HTTP reference",
    description:
      "TypeScript SDK and emulator for the Reseller REST API: register and renew domains without ever buying twice.",
  },
  ru: {
    label: "Русский",
    guides: "Руководства",
    sdk: "Справочник SDK",
    methods: "Методы клиента",
    cli: "Справочник CLI",
    http: "Справочник HTTP API",
    description: "TypeScript SDK и эмулятор Reseller REST API: регистрация и продление доменов без повторных покупок.",
  },
};

function guidesSidebar(locale: Locale): DefaultTheme.SidebarItem[] {
  const prefix = `/${locale.prefix}guides/`;
  return [
    {
      text: WORDS[locale.key].guides,
      link: prefix,
      items: listGuides(locale).map((g) => ({ text: g.title, link: `${prefix}${g.slug}` })),
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
      { text: w.sdk, link: `${p}sdk/`, activeMatch: `^${p}sdk/` },
      { text: w.cli, link: `${p}cli/`, activeMatch: `^${p}cli/` },
      // A standalone Redoc page, not a VitePress route: `_self` makes the browser load it.
      { text: w.http, link: `/${HTTP_REFERENCE}`, target: "_self" },
    ],
    sidebar: {
      [`${p}guides/`]: guidesSidebar(locale),
      [`${p}sdk/`]: sdkSidebar(locale),
      [`${p}cli/`]: cliSidebar(locale),
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

export default defineConfig({
  base,
  title: "reseller-api",
  cleanUrls: false,
  // The generated SDK pages and the repository-facing README are not site pages of their own.
  srcExclude: ["README.md", "sdk/typedoc-sidebar.json"],
  rewrites: { "guides/README.md": "guides/index.md", "ru/guides/README.md": "ru/guides/index.md" },
  // The Redoc page is checked by the browser tests (every link and `#operation/…` anchor), not here.
  ignoreDeadLinks: [new RegExp(HTTP_REFERENCE.replace(".", "\\."))],
  lastUpdated: false,
  // The local search index and the SDK pages make big chunks by design; the site is served statically.
  vite: { build: { chunkSizeWarningLimit: 4000 } },
  head: [["link", { rel: "icon", href: "data:," }]],
  markdown: {
    config: (md) => operationLinks(md, { base, reference: HTTP_REFERENCE, operationIds }),
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
    search: {
      provider: "local",
      options: {
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
