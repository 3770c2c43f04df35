/** gong's version; test/cli checks it matches package.json. */
export const VERSION = "0.1.0";
