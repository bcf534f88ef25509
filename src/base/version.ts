// The package version both CLIs and the MCP server report (kept equal to package.json's by a test).
export const VERSION = "0.1.0";
