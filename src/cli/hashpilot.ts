#!/usr/bin/env node
// The `hashpilot` editing CLI. Its contract lands with the editing issue; until then the bin
// exists so installs are complete, and says plainly that it does nothing yet.
process.stderr.write("hashpilot: not implemented yet (the editing commands land in a later release)\n");
process.exit(1);
