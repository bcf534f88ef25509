// hashpilot's tools in the one registry — the `edit` (edit.ts, route-edit.ts), `more` (more.ts) and
// `admin` (admin.ts) toolsets — in the order tools/list and docs/tools.md give them; they are
// offered over MCP, `mast query` calls them, and the `hashpilot` CLI maps its argv onto the same inputs.
import {
  configTool,
  provenanceChangeSetTool,
  provenanceQueryTool,
  routeTool,
  telemetryClearTool,
  telemetryExportTool,
  telemetryHealthTool,
  telemetryPruneTool,
  telemetrySessionsTool,
  telemetryShowTool,
  telemetrySummaryTool,
} from "./admin.js";
import { diffApplyTool, readHashTool, readManyTool, replaceHashTool, undoTool } from "./edit.js";
import { astCapabilitiesTool, astFindSymbolsTool, changeSetsTool, diffGenerateTool, grepManyTool, symbolLookupManyTool } from "./more.js";
import { routeEditTool } from "./route-edit.js";

export const EDIT_TOOLS = [
  readManyTool,
  readHashTool,
  grepManyTool,
  replaceHashTool,
  diffGenerateTool,
  diffApplyTool,
  changeSetsTool,
  undoTool,
  provenanceQueryTool,
  provenanceChangeSetTool,
  telemetryShowTool,
  telemetrySummaryTool,
  telemetryHealthTool,
  telemetrySessionsTool,
  telemetryExportTool,
  telemetryPruneTool,
  telemetryClearTool,
  configTool,
  symbolLookupManyTool,
  routeTool,
  astCapabilitiesTool,
  astFindSymbolsTool,
  routeEditTool,
];
