#!/usr/bin/env node
// `npm run package`: builds what a deployment uploads, into artifacts/ (git-ignored):
//   artifacts/functions/, artifacts/functions.zip   the Function app (functions.mjs)
//   artifacts/relay/                                the relay for the VM extension (relay.mjs)
// Options: --no-sea  skip the Linux single executable (Linux VMs then need Node >= 22).
//          --windows-exe PATH  a quiesce-relay.exe built on Windows, for the Windows archive
//          --functions-only / --relay-only
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { packageFunctions } from "./functions.mjs";
import { packageRelay } from "./relay.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const out = join(root, "artifacts");
const argv = process.argv.slice(2);
const args = new Set(argv);
const exeAt = argv.indexOf("--windows-exe");
const windowsExe = exeAt >= 0 ? argv[exeAt + 1] : undefined;
mkdirSync(out, { recursive: true });
if (!args.has("--relay-only")) await packageFunctions(root, out);
if (!args.has("--functions-only"))
  packageRelay(root, out, { sea: !args.has("--no-sea"), windowsExe });
