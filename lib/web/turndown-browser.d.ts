/** Turndown's browser build: the same API as the package's main entry, without its bundled HTML parser. */
declare module "turndown/lib/turndown.browser.es.js" {
  import TurndownService from "turndown";
  export default TurndownService;
}
