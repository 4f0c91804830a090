/**
 * The default VitePress theme with a footer under every page: the package version, the changelog and
 * the repository (the theme's own footer shows only on pages without a sidebar).
 */
import DefaultTheme from "vitepress/theme";
import { h } from "vue";
import PageFooter from "./PageFooter.vue";
import "./custom.css";

export default {
  extends: DefaultTheme,
  Layout: () => h(DefaultTheme.Layout, null, { "doc-after": () => h(PageFooter) }),
};
